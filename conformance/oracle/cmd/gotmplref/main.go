// Command gotmplref is the conformance oracle for capi-render's Go template engine
// (src/gotemplate). It executes templates exactly as cluster-api v1.10.10 renders
// ClusterClass `valueFrom.template` / `enabledIf` values
// (internal/controllers/topology/cluster/patches/inline/json_patch_generator.go):
//
//	template.New("tpl").Funcs(sprig.HermeticTxtFuncMap()).Parse(text)
//	tpl.Execute(&buf, data)   // data: JSON unmarshalled into interface{} (numbers are float64)
//
// Inputs are the hand-written case files INDIR/*.json, each a list of
// {"name", "template", "data": [shape, ...]}: every template runs once per data shape.
// A generated set (gen.go) crosses expressions with data shapes.
//
// Output: OUTDIR/gotmpl/<file>.json and OUTDIR/gotmpl/generated.json, lists of Result.
//
// Usage: go run ./cmd/gotmplref INDIR OUTDIR
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
)

// Input is one hand-written case: a template and the data shapes it runs with.
type Input struct {
	Name     string            `json:"name"`
	Template string            `json:"template"`
	Data     []json.RawMessage `json:"data"`
}

// Result is one execution. Exactly one of Output, OutputHex (output that is not
// valid UTF-8, hex of Go's bytes) and Error is set.
type Result struct {
	Name      string          `json:"name"`
	Template  string          `json:"template"`
	Data      json.RawMessage `json:"data"`
	Output    *string         `json:"output,omitempty"`
	OutputHex *string         `json:"output_hex,omitempty"`
	Error     *string         `json:"error,omitempty"`
}

func strp(s string) *string { return &s }

// run executes one template with one data document, recovering any panic.
func run(name, text string, raw json.RawMessage) (r Result) {
	r = Result{Name: name, Template: text, Data: raw}
	defer func() {
		if p := recover(); p != nil {
			r.Output, r.OutputHex = nil, nil
			r.Error = strp(fmt.Sprintf("panic: %v", p))
		}
	}()
	var data interface{}
	if err := json.Unmarshal(raw, &data); err != nil {
		panic("bad data in case " + name + ": " + err.Error())
	}
	tpl, err := template.New("tpl").Funcs(sprig.HermeticTxtFuncMap()).Parse(text)
	if err != nil {
		r.Error = strp(err.Error())
		return r
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, data); err != nil {
		r.Error = strp(err.Error())
		return r
	}
	if utf8.Valid(buf.Bytes()) {
		r.Output = strp(buf.String())
	} else {
		r.OutputHex = strp(hex.EncodeToString(buf.Bytes()))
	}
	return r
}

func write(path string, results []Result) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(results); err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		panic(err)
	}
}

// compact re-encodes a JSON document without insignificant white space, keeping
// number texts as written.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gotmplref INDIR OUTDIR")
		os.Exit(2)
	}
	in, out := os.Args[1], filepath.Join(os.Args[2], "gotmpl")
	if err := os.MkdirAll(out, 0o755); err != nil {
		panic(err)
	}
	files, err := filepath.Glob(filepath.Join(in, "*.json"))
	if err != nil {
		panic(err)
	}
	sort.Strings(files)
	total := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var inputs []Input
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&inputs); err != nil {
			panic(f + ": " + err.Error())
		}
		var results []Result
		for _, c := range inputs {
			if len(c.Data) == 0 {
				c.Data = []json.RawMessage{json.RawMessage("{}")}
			}
			for i, d := range c.Data {
				results = append(results, run(fmt.Sprintf("%s#%d", c.Name, i), c.Template, compact(d)))
			}
		}
		write(filepath.Join(out, strings.TrimSuffix(filepath.Base(f), ".json")+".json"), results)
		total += len(results)
	}
	gen := generated()
	write(filepath.Join(out, "generated.json"), gen)
	total += len(gen)
	fmt.Fprintf(os.Stderr, "gotmplref: %d cases\n", total)
}
