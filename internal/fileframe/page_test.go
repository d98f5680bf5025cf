package fileframe

import "testing"

func TestAnyKept(t *testing.T) {
	for _, tt := range []struct {
		name   string
		assets []PageAsset
		want   bool
	}{
		{"none", nil, false},
		{"only problems", []PageAsset{{URL: "https://a.example/x.png", Problem: "404"}}, false},
		{"one kept", []PageAsset{{URL: "https://a.example/x.png", Problem: "404"}, {URL: "https://a.example/y.png", SHA256: "ab"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := AnyKept(tt.assets); got != tt.want {
				t.Errorf("AnyKept = %v, want %v", got, tt.want)
			}
		})
	}
}
