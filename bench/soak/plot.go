package main

import (
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// curve is one line of a panel.
type curve struct {
	name  string
	value func(sample) float64
}

// writePNG draws the soak's curves against time, one panel per unit, with
// the end of warm-up marked, with gonum/plot as the benchmark's plots.
func writePNG(path string, samples []sample, warmup float64) error {
	panels := []struct {
		title, y string
		curves   []curve
	}{
		{"memory", "MiB", []curve{{"RSS", func(s sample) float64 { return s.RSSMiB }}, {"live heap", func(s sample) float64 { return s.HeapMiB }}}},
		{"goroutines", "goroutines", []curve{{"goroutines", func(s sample) float64 { return s.Goroutines }}}},
		{"database", "MiB", []curve{{"file", func(s sample) float64 { return s.DBFileMiB }}, {"in use", func(s sample) float64 { return s.DBInUseMiB }}}},
	}
	plots := [][]*plot.Plot{make([]*plot.Plot, len(panels))}
	for i, pn := range panels {
		p, err := timePanel(pn.title, pn.y, pn.curves, samples, warmup)
		if err != nil {
			return err
		}
		plots[0][i] = p
	}
	img := vgimg.New(vg.Length(len(panels))*11*vg.Centimeter, 9*vg.Centimeter)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func timePanel(title, yLabel string, curves []curve, samples []sample, warmup float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.BackgroundColor = color.White
	top := 0.0
	for i, c := range curves {
		pts := make(plotter.XYs, len(samples))
		for j, s := range samples {
			pts[j].X, pts[j].Y = s.Seconds, c.value(s)
			top = max(top, pts[j].Y)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		p.Add(line)
		p.Legend.Add(c.name, line)
	}
	p.Y.Max = top * 1.3 // room for the legend
	mark, err := plotter.NewLine(plotter.XYs{{X: warmup, Y: 0}, {X: warmup, Y: p.Y.Max}})
	if err != nil {
		return nil, err
	}
	mark.Color = color.Gray{Y: 160}
	mark.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(mark)
	p.Legend.Add("end of warm-up", mark)
	return p, nil
}
