package main

import (
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// writePlot draws one panel per x axis (watchers; objects): watch latency
// in milliseconds, and growth cost relative to the smallest store, against
// the count, one line per series, log-scaled x.
func writePlot(r *results, path string) error {
	var axes []string
	byAxis := map[string][]series{}
	for _, s := range r.Series {
		if _, ok := byAxis[s.XLabel]; !ok {
			axes = append(axes, s.XLabel)
		}
		byAxis[s.XLabel] = append(byAxis[s.XLabel], s)
	}
	plots := make([][]*plot.Plot, 1)
	for _, ax := range axes {
		p, err := panel(r, ax, byAxis[ax])
		if err != nil {
			return err
		}
		plots[0] = append(plots[0], p)
	}
	w, h := vg.Length(len(plots[0]))*12*vg.Centimeter, 10*vg.Centimeter
	img, save := newCanvas(path, w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots[0]), PadX: vg.Centimeter, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}
	return save()
}

func panel(r *results, xLabel string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "by " + xLabel + " (" + r.Profile + " profile)"
	p.X.Label.Text = xLabel
	p.Y.Label.Text = ss[0].YLabel
	p.Y.Min = 0
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	top := 0.0
	for i, s := range ss {
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
			top = max(top, s.Y[j])
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	p.Y.Max = top * 1.4 // headroom above the lines for the legend
	p.BackgroundColor = color.White
	return p, nil
}

// newCanvas returns a PNG or SVG canvas (by the file's extension) and a
// func that writes it to path.
func newCanvas(path string, w, h vg.Length) (vg.CanvasSizer, func() error) {
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		c := vgsvg.New(w, h)
		return c, func() error { return saveTo(path, c) }
	}
	c := vgimg.New(w, h)
	return c, func() error { return saveTo(path, vgimg.PngCanvas{Canvas: c}) }
}

type writerTo interface {
	WriteTo(w io.Writer) (int64, error)
}

func saveTo(path string, c writerTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
