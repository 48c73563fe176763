// Command envsubstref is the conformance oracle for capi-render's envsubst engine.
//
// It runs the real github.com/drone/envsubst/v2 (the version clusterctl v1.10.10
// pins) and the real clusterctl SimpleProcessor
// (sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor@v1.10.10) on a
// deterministic set of cases and writes what they produce:
//
//	OUTDIR/envsubst/cases.json    one record per case (see Case)
//	OUTDIR/envsubst/unicode.json  Go's unicode.IsLetter/IsDigit/ToUpper/ToLower,
//	                              which the parser and the case functions rely on
//
// With -rust-tables FILE it instead writes the Rust source of the Unicode tables
// that src/envsubst/unicode_tables.rs holds (generated from the same Go data).
//
// Usage: go run ./cmd/envsubstref OUTDIR
package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/drone/envsubst/v2"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
)

// Case is one oracle record. Fields whose value is not valid UTF-8 are given
// in the matching *_hex field instead (hex of the raw Go bytes). Absent results
// are omitted; variables/variable_map are also omitted when empty.
type Case struct {
	ID    int               `json:"id"`
	Kind  string            `json:"kind"`
	Input string            `json:"input"`
	Vars  map[string]string `json:"vars"`

	// drone/envsubst: envsubst.Parse(Input) then Execute(lookup-or-empty).
	ParseError *string `json:"parse_error,omitempty"`
	Output     *string `json:"output,omitempty"`
	OutputHex  *string `json:"output_hex,omitempty"`
	Panic      *string `json:"panic,omitempty"`

	// clusterctl SimpleProcessor.
	Variables        []string           `json:"variables,omitempty"`
	VariableMap      map[string]*string `json:"variable_map,omitempty"`
	VariablesError   *string            `json:"variables_error,omitempty"`
	ProcessOutput    *string            `json:"process_output,omitempty"`
	ProcessOutputHex *string            `json:"process_output_hex,omitempty"`
	ProcessError     *string            `json:"process_error,omitempty"`
	ProcessPanic     *string            `json:"process_panic,omitempty"`
}

func strp(s string) *string { return &s }

func setText(b []byte, text **string, hx **string) {
	if utf8.Valid(b) {
		*text = strp(string(b))
	} else {
		*hx = strp(hex.EncodeToString(b))
	}
}

func panicMessage(r interface{}) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	return fmt.Sprint(r)
}

func runDrone(c *Case) {
	t, err := envsubst.Parse(c.Input)
	if err != nil {
		c.ParseError = strp(err.Error())
		return
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.Panic = strp(panicMessage(r))
			}
		}()
		out, err := t.Execute(func(name string) string { return c.Vars[name] })
		if err != nil {
			// Execute only fails on writer errors; record it loudly.
			c.Panic = strp("execute error: " + err.Error())
			return
		}
		setText([]byte(out), &c.Output, &c.OutputHex)
	}()
}

func runProcessor(c *Case) {
	p := yamlprocessor.NewSimpleProcessor()
	vars, err := p.GetVariables([]byte(c.Input))
	if err != nil {
		c.VariablesError = strp(err.Error())
	} else {
		c.Variables = vars
		m, err := p.GetVariableMap([]byte(c.Input))
		if err != nil {
			panic("GetVariableMap failed after GetVariables succeeded: " + err.Error())
		}
		c.VariableMap = m
	}
	lookup := func(name string) (string, error) {
		v, ok := c.Vars[name]
		if !ok {
			return "", fmt.Errorf("Failed to get value for variable %q", name)
		}
		return v, nil
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.ProcessPanic = strp(panicMessage(r))
			}
		}()
		out, err := p.Process([]byte(c.Input), lookup)
		if err != nil {
			c.ProcessError = strp(err.Error())
			if string(out) != c.Input {
				panic("Process returned modified bytes with an error")
			}
			return
		}
		setText(out, &c.ProcessOutput, &c.ProcessOutputHex)
	}()
}

func main() {
	rustTables := flag.String("rust-tables", "", "write the Rust Unicode tables to this file and exit")
	flag.Parse()
	if *rustTables != "" {
		if err := os.WriteFile(*rustTables, []byte(rustTableSource()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: envsubstref OUTDIR | -rust-tables FILE")
		os.Exit(2)
	}
	dir := filepath.Join(flag.Arg(0), "envsubst")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	cases := generate()
	for i := range cases {
		cases[i].ID = i
		if !utf8.ValidString(cases[i].Input) {
			panic("generated input is not valid UTF-8: " + cases[i].Input)
		}
		for k, v := range cases[i].Vars {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				panic("generated variable is not valid UTF-8: " + k + "=" + v)
			}
		}
		runDrone(&cases[i])
		runProcessor(&cases[i])
	}
	writeJSON(filepath.Join(dir, "cases.json"), cases)
	writeJSON(filepath.Join(dir, "unicode.json"), unicodeData())
}

func writeJSON(path string, v interface{}) {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b = append(b, '\n')
	if err := os.WriteFile(path, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// rng is the fixed-seed source of every random choice.
var rng = rand.New(rand.NewSource(20250704))

func pick(xs []string) string { return xs[rng.Intn(len(xs))] }
