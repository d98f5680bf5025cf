package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
)

// logoPNG draws the demo studio's logo: a clay disc with a sage wave across
// it on a transparent ground, 240×240.
func logoPNG() ([]byte, error) {
	const n = 240
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	clay := color.NRGBA{0xc8, 0x64, 0x3b, 0xff}
	sage := color.NRGBA{0x7d, 0x8f, 0x6a, 0xff}
	for y := range n {
		for x := range n {
			dx, dy := float64(x)-n/2+0.5, float64(y)-n/2+0.5
			if math.Hypot(dx, dy) > n/2-4 {
				continue
			}
			wave := n/2 + 22*math.Sin(float64(x)/n*2*math.Pi)
			if float64(y) > wave {
				img.SetNRGBA(x, y, sage)
			} else {
				img.SetNRGBA(x, y, clay)
			}
		}
	}
	var b bytes.Buffer
	err := png.Encode(&b, img)
	return b.Bytes(), err
}

// backgroundJPEG draws a photograph-like seascape at dusk, 1440×900: a
// warm sky over a darker sea, a low sun and its reflection.
func backgroundJPEG() ([]byte, error) {
	const w, h = 1440, 900
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	horizon := 0.58 * h
	sunX, sunY, sunR := 0.68*w, horizon-70, 60.0
	mix := func(a, b [3]float64, t float64) [3]float64 {
		return [3]float64{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
	}
	for y := range h {
		for x := range w {
			fx, fy := float64(x), float64(y)
			var c [3]float64
			if fy < horizon {
				c = mix([3]float64{58, 70, 112}, [3]float64{246, 170, 120}, math.Pow(fy/horizon, 1.6))
				glow := math.Max(0, 1-math.Hypot(fx-sunX, fy-sunY)/420)
				c = mix(c, [3]float64{255, 214, 160}, glow*glow)
				if math.Hypot(fx-sunX, fy-sunY) < sunR {
					c = [3]float64{255, 236, 200}
				}
			} else {
				t := (fy - horizon) / (h - horizon)
				c = mix([3]float64{92, 96, 120}, [3]float64{24, 32, 52}, math.Sqrt(t))
				ripple := 0.5 + 0.5*math.Sin(fy*0.9+math.Sin(fx*0.013)*3)
				if math.Abs(fx-sunX) < sunR*1.4*(1-t*0.6) && ripple > 0.55 {
					c = mix(c, [3]float64{255, 206, 150}, 0.7*(1-t))
				}
			}
			img.Set(x, y, color.RGBA{uint8(c[0]), uint8(c[1]), uint8(c[2]), 0xff})
		}
	}
	var b bytes.Buffer
	err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 82})
	return b.Bytes(), err
}
