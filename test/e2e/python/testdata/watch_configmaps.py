"""Watch ConfigMaps with the official Kubernetes Python client.

Usage: watch_configmaps.py KUBECONFIG NAMESPACE STOP_NAME TIMEOUT_SECONDS

Prints one line per watch event, "TYPE NAME v=VALUE" (VALUE is data["v"]),
and exits 0 after the DELETED event of STOP_NAME, or 1 if the server ends
the watch (after TIMEOUT_SECONDS) first.
"""

import sys

from kubernetes import client, config, watch


def main():
    kubeconfig, namespace, stop_name, timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_config_map, namespace=namespace, timeout_seconds=timeout):
        obj = event["object"]
        value = (obj.data or {}).get("v", "")
        print(f"{event['type']} {obj.metadata.name} v={value}", flush=True)
        if event["type"] == "DELETED" and obj.metadata.name == stop_name:
            w.stop()
            return 0
    print(f"the watch ended before {stop_name} was deleted", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
