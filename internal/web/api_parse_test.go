package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestParseCustomHTMLRequest(t *testing.T) {
	tests := []struct {
		name string
		body string
		want customHTMLRequest
		code string // the error code; "" for success
	}{
		{name: "all fields", body: `{"html":"<p>x</p>","publish":true,"fileId":"f_1"}`,
			want: customHTMLRequest{HTML: "<p>x</p>", Publish: true, FileID: "f_1"}},
		{name: "html only: publish omitted is a draft", body: `{"html":"<p>x</p>"}`,
			want: customHTMLRequest{HTML: "<p>x</p>"}},
		{name: "publish false", body: `{"html":"h","publish":false}`, want: customHTMLRequest{HTML: "h"}},
		{name: "publish null counts as omitted", body: `{"html":"h","publish":null}`, want: customHTMLRequest{HTML: "h"}},
		{name: "html null counts as absent", body: `{"html":null}`, want: customHTMLRequest{}},
		{name: "fileId null counts as absent", body: `{"html":"h","fileId":null}`, want: customHTMLRequest{HTML: "h"}},
		{name: "empty object", body: `{}`, want: customHTMLRequest{}},
		{name: "whitespace around", body: " \n\t{ \"html\" : \"h\" , \"publish\" : true }\r\n", want: customHTMLRequest{HTML: "h", Publish: true}},
		{name: "escapes decoded", body: `{"html":"<a href=\"x\">\u00e9\n</a>"}`, want: customHTMLRequest{HTML: "<a href=\"x\">é\n</a>"}},
		{name: "unknown fields ignored", body: `{"html":"h","theme":{"a":[1,2]},"x":null}`, want: customHTMLRequest{HTML: "h"}},
		{name: "names match exactly", body: `{"HTML":"h","FileId":"f_1","Publish":true}`, want: customHTMLRequest{}},
		{name: "duplicate name: last wins", body: `{"html":5,"html":"h","publish":"yes","publish":true}`,
			want: customHTMLRequest{HTML: "h", Publish: true}},
		{name: "empty strings", body: `{"html":"","fileId":""}`, want: customHTMLRequest{}},

		{name: "empty body", body: ``, code: fileframe.CodeInvalidJSON},
		{name: "blank body", body: " \n ", code: fileframe.CodeInvalidJSON},
		{name: "syntax error", body: `{"html": "x",}`, code: fileframe.CodeInvalidJSON},
		{name: "unterminated", body: `{"html": "x`, code: fileframe.CodeInvalidJSON},
		{name: "raw newline in string", body: "{\"html\": \"a\nb\"}", code: fileframe.CodeInvalidJSON},
		{name: "array", body: `[{"html":"h"}]`, code: fileframe.CodeInvalidJSON},
		{name: "string", body: `"<html></html>"`, code: fileframe.CodeInvalidJSON},
		{name: "number", body: `5`, code: fileframe.CodeInvalidJSON},
		{name: "null", body: `null`, code: fileframe.CodeInvalidJSON},
		{name: "trailing object", body: `{"html":"h"}{}`, code: fileframe.CodeInvalidJSON},
		{name: "trailing garbage", body: `{"html":"h"} x`, code: fileframe.CodeInvalidJSON},
		{name: "invalid UTF-8", body: "{\"html\":\"\xff\"}", code: fileframe.CodeInvalidJSON},
		{name: "HTML instead of JSON", body: `<!doctype html><html></html>`, code: fileframe.CodeInvalidJSON},

		{name: "html number", body: `{"html":5}`, code: fileframe.CodeInvalidField},
		{name: "html object", body: `{"html":{"body":"x"}}`, code: fileframe.CodeInvalidField},
		{name: "html array", body: `{"html":["a"]}`, code: fileframe.CodeInvalidField},
		{name: "html boolean", body: `{"html":true}`, code: fileframe.CodeInvalidField},
		{name: "publish string", body: `{"html":"h","publish":"yes"}`, code: fileframe.CodeInvalidField},
		{name: "publish string true", body: `{"html":"h","publish":"true"}`, code: fileframe.CodeInvalidField},
		{name: "publish number", body: `{"html":"h","publish":1}`, code: fileframe.CodeInvalidField},
		{name: "fileId number", body: `{"html":"h","fileId":3}`, code: fileframe.CodeInvalidField},
		{name: "fileId object", body: `{"html":"h","fileId":{}}`, code: fileframe.CodeInvalidField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCustomHTMLRequest([]byte(tt.body))
			if code := fileframe.ErrorCode(err); code != tt.code {
				t.Fatalf("error code: got %q (%v), want %q", code, err, tt.code)
			}
			if err != nil {
				if msg := fileframe.ErrorMessage(err); len(msg) < 20 {
					t.Errorf("message %q is too short to help anyone fix the request", msg)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Every wrong field is named in one answer, so an agent can fix them all at
// once.
func TestParseCustomHTMLRequestNamesEveryWrongField(t *testing.T) {
	_, err := parseCustomHTMLRequest([]byte(`{"html":5,"publish":"yes","fileId":[]}`))
	msg := fileframe.ErrorMessage(err)
	for _, want := range []string{"html must be a string", "publish must be true or false", "fileId must be a string"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
}

func TestParseCustomHTMLRequestSyntaxErrorPosition(t *testing.T) {
	_, err := parseCustomHTMLRequest([]byte("{\n  \"html\": \"x\",\n  oops\n}"))
	if msg, want := fileframe.ErrorMessage(err), "line 3, column 3"; !strings.Contains(msg, want) {
		t.Errorf("message %q does not contain %q", msg, want)
	}
}

func FuzzParseCustomHTMLRequest(f *testing.F) {
	for _, seed := range []string{
		`{"html":"<!doctype html><html><body>x</body></html>","publish":true,"fileId":"f_1"}`,
		`{"html":null,"publish":null,"fileId":null}`,
		`{"html":5}`, `{"publish":"yes"}`, `{"fileId":3}`, `[]`, `null`, ``, `{}{}`,
		`{"html":"\ud800"}`, "{\"html\":\"\xff\"}", `{"html":"a","html":"b"}`,
		`{"html":"\ud800\u0041\udc00x"}`, `{"x":{"y":[1,{"z":null}]},"html":"h","x":1e999}`, `{"publish":true}  `, `{"html":"h"} {`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseCustomHTMLRequest(body)
		if err != nil {
			switch code := fileframe.ErrorCode(err); code {
			case fileframe.CodeInvalidJSON, fileframe.CodeInvalidField:
			default:
				t.Fatalf("error code %q (%v), want invalid_json or invalid_field", code, err)
			}
			if !utf8.ValidString(fileframe.ErrorMessage(err)) {
				t.Fatalf("message is not UTF-8: %q", fileframe.ErrorMessage(err))
			}
			// Nothing encoding/json takes as an object is refused as JSON.
			if obj, derr := stdObject(body); fileframe.ErrorCode(err) == fileframe.CodeInvalidJSON && utf8.Valid(body) && derr == nil && obj != nil {
				t.Fatalf("refused %q, an object encoding/json takes: %v", body, err)
			}
			return
		}
		// Whatever parses is one valid JSON object, and the fields agree
		// with an independent decoding.
		obj, err := stdObject(body)
		if err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", body, err)
		}
		if obj == nil {
			t.Fatalf("accepted %q, which is not an object", body)
		}
		if !utf8.Valid(body) {
			t.Fatalf("accepted invalid UTF-8 %q", body)
		}
		html, _ := obj["html"].(string)
		if got.HTML != html {
			t.Fatalf("html: got %q, want %q", got.HTML, html)
		}
		fileID, _ := obj["fileId"].(string)
		if string(got.FileID) != fileID {
			t.Fatalf("fileId: got %q, want %q", got.FileID, fileID)
		}
		if publish, _ := obj["publish"].(bool); got.Publish != publish {
			t.Fatalf("publish: got %v, want %v", got.Publish, publish)
		}
		for name, want := range map[string]string{"html": "string", "fileId": "string", "publish": "bool"} {
			switch obj[name].(type) {
			case nil, string, bool:
				if want == "string" {
					if _, isBool := obj[name].(bool); isBool {
						t.Fatalf("accepted %s of type bool in %q", name, body)
					}
				} else if _, isString := obj[name].(string); isString {
					t.Fatalf("accepted %s of type string in %q", name, body)
				}
			default:
				t.Fatalf("accepted %s of type %T in %q", name, obj[name], body)
			}
		}
	})
}

// stdObject decodes body with encoding/json, numbers kept as text (so that
// 1e999 is a number, as the API takes it): the object, nil for any other
// value, or the error for anything but exactly one JSON value.
func stdObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the value (%v)", err)
	}
	obj, _ := v.(map[string]any)
	return obj, nil
}

// BenchmarkParseCustomHTMLRequest parses the body of scripts/bench-http's
// page POST: a 20 KB page whose attributes' quotes are escaped.
func BenchmarkParseCustomHTMLRequest(b *testing.B) {
	var page strings.Builder
	page.WriteString(`<!DOCTYPE html><html><head><title>Bench</title><meta name="viewport" content="width=device-width"></head><body>`)
	for range 250 {
		page.WriteString(`<p>Quarterly figures, the plan for the next season and a few words.</p>`)
	}
	page.WriteString(`</body></html>`)
	body, err := json.Marshal(map[string]any{"fileId": "f_0123456789abcdef", "html": page.String(), "publish": true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseCustomHTMLRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
