package migration

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tt := range []struct {
		name    string
		files   fstest.MapFS
		want    []string // names in order
		wantErr string
	}{
		{"none", fstest.MapFS{}, nil, ""},
		{"in order", fstest.MapFS{
			"m/002-b.sql": file("B"), "m/001-a.sql": file("A"), "m/010-notes.txt": file("x"),
		}, []string{"001-a.sql", "002-b.sql"}, ""},
		{"gap", fstest.MapFS{"m/001-a.sql": file(""), "m/003-c.sql": file("")}, nil, "expected number 2"},
		{"repeat", fstest.MapFS{"m/001-a.sql": file(""), "m/001-b.sql": file("")}, nil, "expected number 2"},
		{"no number", fstest.MapFS{"m/initial.sql": file("")}, nil, "not NNN-name.sql"},
		{"zero", fstest.MapFS{"m/000-a.sql": file("")}, nil, "not NNN-name.sql"},
		{"other dir ignored", fstest.MapFS{"m/001-a.sql": file("A"), "n/002-b.sql": file("B")}, []string{"001-a.sql"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := Load(tt.files, "m")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var got []string
			for i, m := range ms {
				got = append(got, m.Name)
				if m.Version != i+1 {
					t.Errorf("%s: Version = %d, want %d", m.Name, m.Version, i+1)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("names = %v, want %v", got, tt.want)
			}
			if len(ms) > 0 && ms[0].SQL != "A" {
				t.Errorf("first SQL = %q, want %q", ms[0].SQL, "A")
			}
		})
	}
}
