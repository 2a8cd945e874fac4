package history

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffSummarize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{{
		name: "scale: spec first, the generation bump after, revision and managedFields ignored",
		old:  `{"metadata":{"name":"web","generation":1,"resourceVersion":"5","managedFields":[{"manager":"a"}]},"spec":{"replicas":3}}`,
		new:  `{"metadata":{"name":"web","generation":2,"resourceVersion":"9","managedFields":[{"manager":"b"}]},"spec":{"replicas":5}}`,
		want: []string{"spec.replicas: 3 → 5", "metadata.generation: 1 → 2"},
	}, {
		name: "added and removed fields, keys that are not words",
		old:  `{"data":{"a":"1","old":"x"},"metadata":{"annotations":{"example.com/x":"y"}}}`,
		new:  `{"data":{"a":"1","b":"two words"},"metadata":{}}`,
		want: []string{`data.b: <none> → "two words"`, "data.old: x → <none>", "metadata.annotations[example.com/x]: y → <none>"},
	}, {
		name: "list elements by key",
		old:  `{"status":{"conditions":[{"type":"Available","status":"False"},{"type":"Progressing","status":"True"}]}}`,
		new:  `{"status":{"conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"True"}]}}`,
		want: []string{"status.conditions[type=Available].status: False → True"},
	}, {
		name: "containers by name, deep in the template",
		old:  `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`,
		new:  `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`,
		want: []string{"spec.template.spec.containers[name=web].image: nginx:1 → nginx:2"},
	}, {
		name: "lists of plain values are one change",
		old:  `{"metadata":{"finalizers":["a"]}}`,
		new:  `{"metadata":{"finalizers":["a","b"]}}`,
		want: []string{`metadata.finalizers: ["a"] → ["a","b"]`},
	}, {
		name: "a new subtree is one change",
		old:  `{"status":{}}`,
		new:  `{"status":{"conditions":[{"type":"Ready","status":"True","message":"a long message that will not fit in a cell"}]}}`,
		want: []string{"status.conditions: <none> → […]"},
	}, {
		name: "many changes: paths only",
		old:  `{"status":{}}`,
		new:  `{"status":{"a":1,"b":2,"c":3,"d":4,"e":5}}`,
		want: []string{"status.a", "status.b", "status.c", "status.d", "status.e"},
	}, {
		name: "many changes in list elements: each element once",
		old:  `{"status":{"replicas":3,"conditions":[{"type":"A","status":"False","reason":"x","message":"m"},{"type":"B","status":"True"}]}}`,
		new:  `{"status":{"replicas":5,"conditions":[{"type":"A","status":"True","reason":"y","message":"n"},{"type":"B","status":"False"}]}}`,
		want: []string{"status.conditions[type=A]", "status.conditions[type=B]", "status.replicas"},
	}, {
		name: "nothing changed",
		old:  `{"metadata":{"resourceVersion":"1"}}`,
		new:  `{"metadata":{"resourceVersion":"2"}}`,
		want: []string{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(Diff(obj(t, tc.old), obj(t, tc.new)))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDiffAnnotationKeyPath(t *testing.T) {
	got := Diff(obj(t, `{"metadata":{"annotations":{}}}`), obj(t, `{"metadata":{"annotations":{"deployment.kubernetes.io/revision":"1"}}}`))
	if len(got) != 1 || got[0].Path != "metadata.annotations[deployment.kubernetes.io/revision]" ||
		!reflect.DeepEqual(got[0].Fields, []string{"metadata", "annotations", "deployment.kubernetes.io/revision"}) {
		t.Errorf("got %+v", got)
	}
}

func TestDiffListFieldsStopAtElement(t *testing.T) {
	got := Diff(obj(t, `{"status":{"conditions":[{"type":"A","status":"False"}]}}`), obj(t, `{"status":{"conditions":[{"type":"A","status":"True"}]}}`))
	if len(got) != 1 || !reflect.DeepEqual(got[0].Fields, []string{"status", "conditions"}) {
		t.Errorf("got %+v", got)
	}
}

func TestSummarizeCapsLongLists(t *testing.T) {
	var changes []Change
	for i := range 12 {
		changes = append(changes, Change{Path: "p" + strconv.Itoa(i)})
	}
	got := Summarize(changes)
	if len(got) != listedChanges+1 || got[listedChanges] != "…4 more" {
		t.Errorf("got %q", got)
	}
}

func TestValue(t *testing.T) {
	for v, want := range map[any]string{
		nil:                    "<none>",
		"web":                  "web",
		"":                     `""`,
		"a b":                  `"a b"`,
		int64(3):               "3",
		1.5:                    "1.5",
		true:                   "true",
		"2026-12-02T13:34:49Z": "2026-12-02T13:34:49Z",
		"this string is much longer than forty characters": `"this string is much longer than forty …`,
	} {
		if got := Value(v); got != want {
			t.Errorf("Value(%#v) = %q, want %q", v, got, want)
		}
	}
}
