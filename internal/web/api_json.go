package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// jsonObject is a request body parsed as one JSON object, its members by
// exact name (encoding/json would match struct fields case-insensitively,
// taking "FILEID" for fileId). The field getters collect the problems of
// wrong types, so that one answer names them all (invalid_field).
type jsonObject struct {
	fields   map[string]json.RawMessage
	problems []string
}

// parseJSONObject parses body as one JSON object: invalid_json when it is
// empty, not UTF-8, not JSON, or not an object. An empty body is {} when
// emptyOK is set.
func parseJSONObject(body []byte, emptyOK bool) (*jsonObject, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return &jsonObject{fields: map[string]json.RawMessage{}}, nil
		}
		return nil, invalidJSON("The request body is empty. Send a JSON object with the fields docs/api.md gives for this endpoint.")
	}
	if !utf8.Valid(body) {
		return nil, invalidJSON("The request body is not valid UTF-8. Encode the JSON as UTF-8.")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			line, col := position(body, syntax.Offset)
			return nil, invalidJSON(
				"The request body is not valid JSON: %s, at line %d, column %d (byte %d). Send exactly one JSON object, its strings' quotes, backslashes and control characters escaped.",
				syntax.Error(), line, col, syntax.Offset)
		case errors.As(err, &typ):
			return nil, invalidJSON("The request body is a JSON %s; it must be a JSON object ({...}) with the fields docs/api.md gives for this endpoint.", typ.Value)
		default:
			return nil, invalidJSON("The request body is not a JSON object. Send a JSON object ({...}) with the fields docs/api.md gives for this endpoint.")
		}
	}
	if fields == nil {
		return nil, invalidJSON("The request body is JSON null; it must be a JSON object ({...}) with the fields docs/api.md gives for this endpoint.")
	}
	return &jsonObject{fields: fields}, nil
}

// string returns the string member name; "" when it is absent or null.
func (o *jsonObject) string(name string) (string, error) {
	raw, ok := o.fields[name]
	if !ok || isNull(raw) {
		return "", nil
	}
	if kind := jsonKind(raw); kind != "string" {
		o.problems = append(o.problems, fmt.Sprintf("%s must be a string, got %s", name, kind))
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", invalidJSON("The %s string could not be decoded: %s.", name, err)
	}
	return v, nil
}

// bool returns the boolean member name; false when it is absent or null.
func (o *jsonObject) bool(name string) bool {
	raw, ok := o.fields[name]
	if !ok || isNull(raw) {
		return false
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true
	case "false":
	default:
		o.problems = append(o.problems, fmt.Sprintf("%s must be true or false (a JSON boolean, not a string), got %s", name, jsonKind(raw)))
	}
	return false
}

// positive returns the member name as a whole number ≥ 1; 0 when it is
// absent or null.
func (o *jsonObject) positive(name string) int {
	raw, ok := o.fields[name]
	if !ok || isNull(raw) {
		return 0
	}
	var n int
	if jsonKind(raw) != "number" || json.Unmarshal(raw, &n) != nil || n < 1 {
		o.problems = append(o.problems, fmt.Sprintf("%s must be a whole number of at least 1, got %s", name, truncate(string(bytes.TrimSpace(raw)), 40)))
		return 0
	}
	return n
}

// only adds a problem for every member not in names.
func (o *jsonObject) only(names ...string) {
	for _, name := range slices.Sorted(maps.Keys(o.fields)) {
		if slices.Contains(names, name) {
			continue
		}
		if len(names) == 0 {
			o.problems = append(o.problems, fmt.Sprintf("%q is not a field of this request (it takes none: send {} or no body)", truncate(name, 40)))
		} else {
			o.problems = append(o.problems, fmt.Sprintf("%q is not a field of this request (it takes %s)", truncate(name, 40), strings.Join(names, ", ")))
		}
	}
}

// err is invalid_field naming every problem found, or nil.
func (o *jsonObject) err() error {
	if len(o.problems) == 0 {
		return nil
	}
	return fileframe.Errorf(fileframe.CodeInvalidField,
		"%s. Fix the field and send the request again.", strings.Join(o.problems, "; "))
}

// strings returns the member name as a list of strings; nil when it is
// absent or null. At most max are read: a longer list is a problem.
func (o *jsonObject) strings(name string, max int) []string {
	raw, ok := o.fields[name]
	if !ok || isNull(raw) {
		return nil
	}
	var v []string
	if jsonKind(raw) != "array" || json.Unmarshal(raw, &v) != nil {
		o.problems = append(o.problems, fmt.Sprintf("%s must be an array of strings, got %s", name, truncate(string(bytes.TrimSpace(raw)), 40)))
		return nil
	}
	if len(v) > max {
		o.problems = append(o.problems, fmt.Sprintf("%s holds at most %d strings, got %d", name, max, len(v)))
		return nil
	}
	return v
}

// positives returns the member name as a list of whole numbers ≥ 1; nil
// when it is absent or null. At most max are read.
func (o *jsonObject) positives(name string, max int) []int {
	raw, ok := o.fields[name]
	if !ok || isNull(raw) {
		return nil
	}
	var v []json.RawMessage
	if jsonKind(raw) != "array" || json.Unmarshal(raw, &v) != nil {
		o.problems = append(o.problems, fmt.Sprintf("%s must be an array of whole numbers, got %s", name, truncate(string(bytes.TrimSpace(raw)), 40)))
		return nil
	}
	if len(v) > max {
		o.problems = append(o.problems, fmt.Sprintf("%s holds at most %d numbers, got %d", name, max, len(v)))
		return nil
	}
	ns := make([]int, 0, len(v))
	for _, x := range v {
		n, err := strconv.Atoi(string(bytes.TrimSpace(x)))
		if jsonKind(x) != "number" || err != nil || n < 1 {
			o.problems = append(o.problems, fmt.Sprintf("%s holds whole numbers of at least 1, got %s", name, truncate(string(bytes.TrimSpace(x)), 40)))
			return nil
		}
		ns = append(ns, n)
	}
	return ns
}
