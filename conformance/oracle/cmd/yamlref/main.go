// Command yamlref is the reference for capi-render's YAML writer: it runs the real
// sigs.k8s.io/yaml v1.4.0 (go-yaml v2 emitter) on test values and records the bytes.
//
//	yamlref gen OUTDIR        write OUTDIR/yaml/cases.json and OUTDIR/yaml/named/*
//	yamlref marshal           read one JSON value on stdin, print sigs.k8s.io/yaml.Marshal
//	yamlref corpus OUTDIR F…  parse every document of each file F as clusterctl does and
//	                          write the re-marshalled documents to OUTDIR/<n>.yaml
//	                          (documents joined with "---\n"; used by conformance checks)
//	yamlref unicode           print the Unicode letter / digit / strconv.IsPrint ranges of this Go toolchain
//
// Every value is handled as clusterctl handles objects: JSON text is decoded with
// encoding/json into interface{} (numbers become float64), then yaml.Marshal.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	apiyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v2"
)

const seed = 20250101

func main() {
	if len(os.Args) < 2 {
		fail("usage: yamlref gen OUTDIR | marshal | corpus OUTDIR FILE... | unicode")
	}
	switch os.Args[1] {
	case "gen":
		if len(os.Args) != 3 {
			fail("usage: yamlref gen OUTDIR")
		}
		gen(os.Args[2])
	case "marshal":
		in, err := io.ReadAll(os.Stdin)
		check(err)
		out, ok := marshalJSON(in)
		if !ok {
			fail("marshal failed")
		}
		os.Stdout.WriteString(out)
	case "corpus":
		if len(os.Args) < 4 {
			fail("usage: yamlref corpus OUTDIR FILE...")
		}
		corpus(os.Args[2], os.Args[3:])
	case "unicode":
		printUnicode()
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "yamlref:", msg)
	os.Exit(2)
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

// marshalJSON decodes JSON text into interface{} and marshals it with sigs.k8s.io/yaml.
// go-yaml v2's key order is not transitive for some key sets, and Go randomises map
// iteration, so the output for such a value is not deterministic: those are reported
// as !ok (decided from pairwise orders, so the decision itself is deterministic).
func marshalJSON(in []byte) (string, bool) {
	var v interface{}
	if err := json.Unmarshal(in, &v); err != nil {
		return "", false
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return "", false
	}
	if !keyOrderIsTotal(v) {
		return "", false
	}
	return string(out), true
}

// marshalError returns the error sigs.k8s.io/yaml.Marshal gives for the JSON text, or "".
func marshalError(in []byte) string {
	var v interface{}
	check(json.Unmarshal(in, &v))
	if _, err := yaml.Marshal(v); err != nil {
		return err.Error()
	}
	return ""
}

// keyOrderIsTotal reports whether go-yaml's key comparison, as observed by marshalling
// every pair of keys of every map in v, is transitive on each map's key set.
func keyOrderIsTotal(v interface{}) bool {
	switch x := v.(type) {
	case []interface{}:
		for _, e := range x {
			if !keyOrderIsTotal(e) {
				return false
			}
		}
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			keys = append(keys, k)
			if !keyOrderIsTotal(e) {
				return false
			}
		}
		sort.Strings(keys)
		n := len(keys)
		less := make([][]bool, n)
		for i := range less {
			less[i] = make([]bool, n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				first := firstKey(keys[i], keys[j])
				less[i][j] = first == keys[i]
				less[j][i] = !less[i][j]
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					if less[i][j] && less[j][k] && !less[i][k] {
						return false
					}
				}
			}
		}
	}
	return true
}

// firstKey marshals the map {a, b} and reads back which key go-yaml wrote first.
func firstKey(a, b string) string {
	out, err := yaml.Marshal(map[string]interface{}{a: 0, b: 0})
	check(err)
	// "<<" is written plain and would be read back as a merge key.
	if a == "<<" || b == "<<" {
		other := a
		if a == "<<" {
			other = b
		}
		if strings.HasPrefix(string(out), "<<:") {
			return "<<"
		}
		return other
	}
	var ms goyaml.MapSlice
	check(goyaml.Unmarshal(out, &ms))
	if len(ms) != 2 {
		fail(fmt.Sprintf("cannot read back the order of %q and %q", a, b))
	}
	k, ok := ms[0].Key.(string)
	if !ok || (k != a && k != b) {
		fail(fmt.Sprintf("cannot read back the order of %q and %q", a, b))
	}
	return k
}

type goldenCase struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	YAML  string          `json:"yaml"`
	// Error is set (and YAML empty) when Go's Marshal fails for this input.
	Error string `json:"error,omitempty"`
}

func gen(outdir string) {
	dir := filepath.Join(outdir, "yaml")
	named := filepath.Join(dir, "named")
	check(os.MkdirAll(named, 0o755))

	g := &generator{r: rand.New(rand.NewSource(seed))}
	var cases []goldenCase
	skipped := 0
	add := func(name string, v interface{}) {
		in, err := json.Marshal(v)
		check(err)
		out, ok := marshalJSON(in)
		if !ok {
			if msg := marshalError(in); msg != "" {
				cases = append(cases, goldenCase{Name: name, Input: in, Error: msg})
				return
			}
			skipped++
			return
		}
		cases = append(cases, goldenCase{Name: name, Input: in, YAML: out})
	}
	g.all(add)

	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, c := range cases {
		line, err := json.Marshal(c)
		check(err)
		buf.Write(line)
		if i+1 < len(cases) {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	check(os.WriteFile(filepath.Join(dir, "cases.json"), buf.Bytes(), 0o644))

	for _, n := range namedCases {
		out, ok := marshalJSON([]byte(n.json))
		if !ok {
			fail("named case " + n.name + " is not deterministic")
		}
		check(os.WriteFile(filepath.Join(named, n.name+".json"), []byte(n.json+"\n"), 0o644))
		check(os.WriteFile(filepath.Join(named, n.name+".yaml"), []byte(out), 0o644))
	}
	errors := 0
	for _, c := range cases {
		if c.Error != "" {
			errors++
		}
	}
	fmt.Fprintf(os.Stderr, "yamlref: %d cases (%d of them Go errors; %d with a non-deterministic key order skipped), %d named\n",
		len(cases), errors, skipped, len(namedCases))
}

// corpus parses each file as clusterctl's utilyaml.ToUnstructured does (apimachinery
// YAMLReader, then sigs.k8s.io/yaml.Unmarshal into an object) and re-marshals every
// non-null document.
func corpus(outdir string, files []string) {
	check(os.MkdirAll(outdir, 0o755))
	for i, f := range files {
		data, err := os.ReadFile(f)
		check(err)
		r := apiyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		var docs []string
		for {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			check(err)
			var obj map[string]interface{}
			check(yaml.Unmarshal(doc, &obj))
			if obj == nil {
				continue
			}
			out, err := yaml.Marshal(obj)
			check(err)
			docs = append(docs, string(out))
		}
		name := filepath.Join(outdir, fmt.Sprintf("%03d.yaml", i))
		check(os.WriteFile(name, []byte(strings.Join(docs, "---\n")), 0o644))
	}
}

func printUnicode() {
	print := func(name string, is func(rune) bool) {
		fmt.Printf("%s:", name)
		in := false
		var lo rune
		for r := rune(0); r <= unicode.MaxRune+1; r++ {
			ok := r <= unicode.MaxRune && is(r)
			if ok && !in {
				lo, in = r, true
			} else if !ok && in {
				fmt.Printf(" 0x%X,0x%X,", lo, r-1)
				in = false
			}
		}
		fmt.Println()
	}
	print("LETTER", unicode.IsLetter)
	print("DIGIT", unicode.IsDigit)
	print("PRINT", strconv.IsPrint)
}

// ---------------------------------------------------------------------------
// Deterministic generation of awkward values.

type generator struct {
	r *rand.Rand
}

func (g *generator) pick(list []string) string { return list[g.r.Intn(len(list))] }

// Strings that YAML 1.1 (go-yaml v2's resolver) would read as something else, or that
// sit right next to such a form.
var lookAlikes = []string{
	"", " ", "  ", "~", "null", "Null", "NULL", "nULL", "nul", "none", "None",
	"y", "Y", "n", "N", "yes", "Yes", "YES", "yES", "no", "No", "NO", "nO",
	"true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "on", "On", "ON", "oN",
	"off", "Off", "OFF", "oFF", "t", "f", "T", "F", "o", "O", "yy", "nn", "ok",
	".nan", ".NaN", ".NAN", ".Nan", "nan", "NaN", ".inf", ".Inf", ".INF", "+.inf", "-.inf",
	"-.Inf", "+.INF", "inf", "Inf", "infinity", "-inf", "+inf", ".", "..", "...", "....",
	"-", "--", "---", "----", "--- x", "... x", "+", "++", "-+", "+-",
	"0", "00", "000", "01", "07", "08", "09", "010", "017", "0777", "0778", "0o17", "0O17",
	"0o", "0x", "0x1F", "0X1f", "0xg", "0b", "0b101", "0B101", "0b102", "0b-101", "0b+1",
	"-0b101", "+0b101", "-0b", "0b_1", "0x_1F", "1_000", "1__0", "_1", "1_", "_", "__",
	"+1", "-1", "+0", "-0", "1", "9", "10", "123", "-123", "+12", "1.0", "1.", ".1", "-.1",
	"+.1", "1.5", "1e3", "1E3", "1e+3", "1e-3", "1.0e3", "1.0E+3", "1e", "e1", ".e1",
	"1e3.5", "1_0.5", "1.2.3", "0.1.2", "1,000", "1 000", "12e", "1e400", "-1e400",
	".1e400", "1e-400", ".5e-999", "1.7976931348623157e308", "1.7976931348623159e308",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"0x7FFFFFFFFFFFFFFF", "0x8000000000000000", "0xFFFFFFFFFFFFFFFF", "0x10000000000000000",
	"0b1111111111111111111111111111111111111111111111111111111111111111",
	"0b11111111111111111111111111111111111111111111111111111111111111111",
	"1:20", "1:2", "1:60", "1:59", "-1:20", "+1:20", "1:20:30", "1:20.5", "1:20.",
	"1_0:20", "190:20:30", "1:20:", ":20", "1::20", "12:30", "12:30:45", "a:20", "1:200",
	"0x1p-2", "0x1.8p3", "1e1_0", "1_e10", "Infinity", "-Infinity", "+Infinity",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00",
	"2001-12-14 21:59:43.10", "2001-12-14 21:59:43.10 -5", "2001-12-15T02:59:43.1Z",
	"2001-12-14T21:59:43Z", "2001-12-14T21:59:43+05:00", "2001-12-14T21:59:43+0500",
	"2001-1-2", "2001-01-02", "2001-13-01", "2001-00-01", "2001-02-29", "2000-02-29",
	"2001-02-30", "2001-12-32", "2001-12-0", "2001-12-14T24:00:00Z", "2001-12-14T23:60:00Z",
	"2001-12-14T23:59:60Z", "2001-12-14T1:2:3Z", "2001-12-14T21:59:43,5Z",
	"2001-12-14T21:59:43.Z", "2001-12-14T21:59:43+25:00", "2001-12-14T21:59:43+24:00",
	"2001-12-14T21:59:43+05:61", "2001-12-14T21:59:43+05:60", "2001-12-14 1:2:3",
	"2001-12-14  21:59:43", "2001-12-14 21:59", "2001-12-14T", "2001-12-14x", "2001-12",
	"2001-", "20011-12-14", "201-12-14", "2001/12/14", "+2001-12-14", "-2001-12-14",
	"2001-12-14 21:59:43.1234567891234", "2001-012-14", "2001-12-014",
	"<<", "<", "=", "?", "?x", "x?", "? x", ":", ":x", "x:", "x: y", "x:y", "x :y",
	"a,b", "[x]", "{x}", "x]", "x}", "#", "#c", "x#y", "x #y", "x# y", "&a", "*a", "!x",
	"!!str", "|", "|x", ">", ">x", "'", "'x'", "''", "\"", "\"x\"", "%", "%pct", "@at",
	"`bt", "- x", "-x", "- ", " -", "-\t", "--x", "x -", "x - y", "a\\b", "\\",
	"café", "naïve", "日本語", "\u00a0", "a\u00a0b", "é", "ß",
}

// runePool is the alphabet of random strings: indicators, blanks, breaks, controls and
// characters from every width class of UTF-8.
var runePool = []rune(
	"aaaabbbcxyzAZ0000111299_-.:/?#,[]{}&*!|>'\"%@`=<+~ \t\n\r\\" +
		"\u0000\u0001\u0007\u0008\u000b\u000c\u001b\u001f\u007f\u0080\u0085\u009f\u00a0\u00a1" +
		"éßü\u0301\u0345\u0663\u0966\u2028\u2029\u2160\u24b6\u3000日\ud7ff\ue000\ufeff\ufffd\ufffe\uffff" +
		"\U0001F600\U00010000\U0010FFFF")

var words = []string{
	"a", "an", "the", "Kubernetes", "cluster", "API", "resource", "spec", "status",
	"description:", "#tag", "-", "x", "controller", "machine", "infrastructure", "é",
	"reconciliation", "ThisIsAVeryLongIdentifierWithoutAnySpacesInsideItAtAllYesReallyLongIndeedMoreThanEightyCharacters",
	"'quoted'", "\"dq\"", "k8s.io/v1", "0", "true", "null", "日本", "\U0001F600", "a:b",
}

func (g *generator) randomString(maxLen int) string {
	n := g.r.Intn(maxLen + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(runePool[g.r.Intn(len(runePool))])
	}
	return b.String()
}

// sentence builds text from words with single (sometimes double) spaces, optionally
// with leading/trailing spaces; long ones exercise line folding.
func (g *generator) sentence(nwords int) string {
	var b strings.Builder
	if g.r.Intn(10) == 0 {
		b.WriteString(strings.Repeat(" ", 1+g.r.Intn(2)))
	}
	for i := 0; i < nwords; i++ {
		if i > 0 {
			switch g.r.Intn(12) {
			case 0:
				b.WriteString("  ")
			case 1:
				b.WriteString("   ")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteString(g.pick(words))
	}
	if g.r.Intn(10) == 0 {
		b.WriteString(strings.Repeat(" ", 1+g.r.Intn(2)))
	}
	return b.String()
}

// multiline builds text with line breaks: leading spaces on the first line, empty
// lines, trailing spaces on some lines, and 0-3 trailing newlines.
func (g *generator) multiline() string {
	var lines []string
	n := 1 + g.r.Intn(5)
	for i := 0; i < n; i++ {
		var l string
		switch g.r.Intn(8) {
		case 0:
			l = ""
		case 1:
			l = "  " + g.sentence(1+g.r.Intn(4))
		case 2:
			l = g.sentence(12 + g.r.Intn(20))
		case 3:
			l = g.sentence(1+g.r.Intn(3)) + " "
		case 4:
			l = g.randomString(10)
		default:
			l = g.sentence(1 + g.r.Intn(6))
		}
		lines = append(lines, l)
	}
	s := strings.Join(lines, "\n")
	s += strings.Repeat("\n", g.r.Intn(4))
	if !strings.Contains(s, "\n") {
		s += "\n"
	}
	return s
}

func (g *generator) numberString() string {
	digits := "0123456789"
	var b strings.Builder
	if g.r.Intn(3) == 0 {
		b.WriteByte("+-"[g.r.Intn(2)])
	}
	switch g.r.Intn(6) {
	case 0:
		b.WriteString([]string{"0x", "0o", "0b", "0X", "0B", "0"}[g.r.Intn(6)])
	}
	n := 1 + g.r.Intn(22)
	for i := 0; i < n; i++ {
		switch g.r.Intn(14) {
		case 0:
			b.WriteByte('_')
		case 1:
			b.WriteByte('.')
		case 2:
			b.WriteByte("eE"[g.r.Intn(2)])
		case 3:
			b.WriteByte(':')
		case 4:
			b.WriteByte("abcdefABCDEF-+"[g.r.Intn(14)])
		default:
			b.WriteByte(digits[g.r.Intn(10)])
		}
	}
	return b.String()
}

func (g *generator) timestampString() string {
	y := fmt.Sprintf("%04d", g.r.Intn(3000))
	if g.r.Intn(10) == 0 {
		y = fmt.Sprint(g.r.Intn(100000))
	}
	num := func(max int) string {
		v := g.r.Intn(max)
		if g.r.Intn(2) == 0 {
			return fmt.Sprintf("%02d", v)
		}
		return fmt.Sprint(v)
	}
	s := y + "-" + num(14) + "-" + num(33)
	switch g.r.Intn(4) {
	case 0:
		return s
	case 1:
		s += string("Tt  x"[g.r.Intn(5)])
	case 2:
		s += "T"
	case 3:
		s += " "
	}
	s += num(26) + ":" + num(62) + ":" + num(62)
	if g.r.Intn(2) == 0 {
		s += "." + fmt.Sprint(g.r.Intn(100000))
	}
	switch g.r.Intn(5) {
	case 0:
		s += "Z"
	case 1:
		s += fmt.Sprintf("%c%02d:%02d", "+-"[g.r.Intn(2)], g.r.Intn(26), g.r.Intn(62))
	case 2:
		s += fmt.Sprintf("%c%02d%02d", "+-"[g.r.Intn(2)], g.r.Intn(26), g.r.Intn(62))
	}
	return s
}

func (g *generator) awkwardString() string {
	switch g.r.Intn(14) {
	case 0, 1:
		return g.pick(lookAlikes)
	case 2:
		return g.randomString(6)
	case 3:
		return g.randomString(30)
	case 4:
		return g.sentence(1 + g.r.Intn(5))
	case 5, 6:
		return g.sentence(10 + g.r.Intn(40))
	case 7:
		return g.multiline()
	case 8:
		return g.numberString()
	case 9:
		return g.timestampString()
	case 10:
		// A look-alike with a prefix or suffix.
		return g.pick([]string{"", " ", "x", "-", "'", "\n", ":", "#"}) + g.pick(lookAlikes) +
			g.pick([]string{"", " ", "x", "\n", ":", " #", "\n\n"})
	case 11:
		return strings.Repeat(g.pick([]string{"a", "ab ", "x", " ", "é ", "- "}), g.r.Intn(60))
	case 12:
		return g.randomString(3) + g.pick(lookAlikes) + g.randomString(3)
	default:
		return g.pick(words)
	}
}

var keyRunes = []rune("aabBAZ000112999__--..//:: é\u0663\u0966\u2160\u24b6\u0345日\U0001F600")

func (g *generator) sortKey() string {
	switch g.r.Intn(6) {
	case 0:
		return g.awkwardString()
	case 1:
		return g.pick(lookAlikes)
	}
	n := 1 + g.r.Intn(6)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(keyRunes[g.r.Intn(len(keyRunes))])
	}
	return b.String()
}

func (g *generator) float() float64 {
	for {
		var f float64
		switch g.r.Intn(12) {
		case 0:
			f = float64(g.r.Intn(2000) - 1000)
		case 1:
			f = float64(g.r.Int63()) * []float64{1, -1}[g.r.Intn(2)]
		case 2:
			f = math.Float64frombits(g.r.Uint64())
		case 3:
			f = (g.r.Float64()*2 - 1) * math.Pow(10, float64(g.r.Intn(60)-30))
		case 4:
			f = float64(g.r.Intn(100000)) * math.Pow(10, float64(g.r.Intn(50)-25))
		case 5:
			f = math.Ldexp(1, g.r.Intn(140)-70) * []float64{1, -1}[g.r.Intn(2)]
		case 6:
			specials := []float64{0, math.Copysign(0, -1), 1e21, 1e20, 1e-7, 1e-6, 9.999999e-7, 1e-5,
				0.0001, 1234567, 1234567.5, 123456.5, 1e6, 999999, 999999.5, 1e22, 5e-324,
				math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
				9007199254740992, 9007199254740993, 18446744073709551615, 18446744073709551616,
				9223372036854775807, -9223372036854775808, 1.8446744073709552e19,
				999999999999999999999, 1e21 - 65536, 0.1, 0.2, 0.30000000000000004, 100, 1e100,
				-1e-100, 123456789012345678, 1.5, 2.5e-5, 1e15, 1e16, 1e17}
			f = specials[g.r.Intn(len(specials))]
		case 7:
			f = math.Ldexp(float64(g.r.Int63n(1<<53)), g.r.Intn(20)) * []float64{1, -1}[g.r.Intn(2)]
		default:
			f = math.Round(g.r.Float64()*1e6) / math.Pow(10, float64(g.r.Intn(8)))
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

func (g *generator) scalar() interface{} {
	switch g.r.Intn(10) {
	case 0:
		return nil
	case 1:
		return g.r.Intn(2) == 0
	case 2, 3:
		return g.float()
	default:
		return g.awkwardString()
	}
}

func (g *generator) value(depth int) interface{} {
	if depth <= 0 {
		return g.scalar()
	}
	switch g.r.Intn(6) {
	case 0, 1:
		return g.scalar()
	case 2, 3:
		m := map[string]interface{}{}
		n := g.r.Intn(5)
		for i := 0; i < n; i++ {
			m[g.mapKey()] = g.value(depth - 1)
		}
		return m
	default:
		n := g.r.Intn(4)
		l := make([]interface{}, 0, n)
		for i := 0; i < n; i++ {
			l = append(l, g.value(depth-1))
		}
		return l
	}
}

func (g *generator) mapKey() string {
	switch g.r.Intn(12) {
	case 0:
		return g.awkwardString()
	case 1:
		return strings.Repeat("k", 120+g.r.Intn(20))
	case 2:
		return g.sortKey()
	default:
		return g.pick([]string{"apiVersion", "kind", "metadata", "name", "spec", "items", "a",
			"b", "x", "y", "n", "on", "1", "2", "10", "-", "~", ""})
	}
}

func (g *generator) all(add func(string, interface{})) {
	// Every look-alike as a value, a key, a list item and at the top level.
	for i, s := range lookAlikes {
		add(fmt.Sprintf("lookalike-%d", i), map[string]interface{}{"v": s, s: "k", "l": []interface{}{s}})
		add(fmt.Sprintf("lookalike-top-%d", i), s)
	}
	// Single strings in several positions and indent levels.
	for i := 0; i < 2500; i++ {
		s := g.awkwardString()
		var v interface{}
		switch i % 6 {
		case 0:
			v = map[string]interface{}{"key": s}
		case 1:
			v = map[string]interface{}{s: "value"}
		case 2:
			v = []interface{}{s, []interface{}{s}}
		case 3:
			v = map[string]interface{}{"a": map[string]interface{}{"bb": []interface{}{map[string]interface{}{"c": s, "d": s}}}}
		case 4:
			v = s
		default:
			v = map[string]interface{}{s: s}
		}
		add(fmt.Sprintf("string-%d", i), v)
	}
	// Numbers, alone and in a map.
	for i := 0; i < 1500; i++ {
		f := g.float()
		if i%2 == 0 {
			add(fmt.Sprintf("number-%d", i), map[string]interface{}{"n": f, "l": []interface{}{f}})
		} else {
			add(fmt.Sprintf("number-%d", i), f)
		}
	}
	// Key order.
	for i := 0; i < 1500; i++ {
		m := map[string]interface{}{}
		n := 2 + g.r.Intn(10)
		for j := 0; j < n; j++ {
			m[g.sortKey()] = j
		}
		add(fmt.Sprintf("keys-%d", i), m)
	}
	// Nested documents.
	for i := 0; i < 1500; i++ {
		add(fmt.Sprintf("nested-%d", i), g.value(4))
	}
	// Empty collections and nulls in every position.
	add("empty-map", map[string]interface{}{})
	add("empty-list", []interface{}{})
	add("null", nil)
	add("true", true)
	add("empties", map[string]interface{}{"m": map[string]interface{}{}, "l": []interface{}{},
		"ll": []interface{}{[]interface{}{}, map[string]interface{}{}, nil},
		"n":  nil})
	// Raw NEL (U+0085) is the one line break encoding/json leaves unescaped: go-yaml
	// folds it when it re-reads the JSON text, and rejects it in keys.
	nel := []string{"a\u0085b", "a \u0085 b", "a\u0085\u0085b", "a\u0085\u0085\u0085b", "\u0085a",
		"a\u0085", "a\u0085--- b", "a\u0085---", "a\u0085...\u0085", "a\u0085 --- b", "a\u0085---x",
		"\u0085\u0085", " \u0085 ", "a\u0085\nb", "a\n\u0085b"}
	for i, s := range nel {
		add(fmt.Sprintf("nel-value-%d", i), map[string]interface{}{"v": s, "l": []interface{}{s}})
		add(fmt.Sprintf("nel-key-%d", i), map[string]interface{}{"a": "\u0085x", "k" + s: 1, "z": "\u0085"})
	}
	add("nel-nested-key", map[string]interface{}{"a": "\u0085\u0085", "b": map[string]interface{}{"c": "\u0085", "d\u0085\u0085e": 1}})
	add("nel-and-control", map[string]interface{}{"a\u0085": 1, "b": "\u007f"})
	// U+2028/U+2029 at the start of a line of a literal block: go-yaml (YAML 1.1) writes
	// them unindented, as the line breaks it takes them for (README, "Known reader
	// difference").
	lsps := []string{"\u2028\n", "\u2029\n", "x\n\u2028y\n", "\n\u2029", "\u2028\u2029\n\n", "a\u2028\nb"}
	for i, s := range lsps {
		add(fmt.Sprintf("ls-ps-line-start-%d", i), map[string]interface{}{"v": s, "l": []interface{}{s}, s: 1})
	}
	// A value starting with a BOM: go-yaml escapes every character of it.
	add("bom-start", map[string]interface{}{"v": "\ufeffabc d", "w": "x\ufeffy"})
	// Keys around go-yaml's 1024-character simple-key limit on the JSON text.
	for _, n := range []int{1019, 1020, 1021, 1022, 1023, 1030} {
		add(fmt.Sprintf("long-key-%d", n), map[string]interface{}{strings.Repeat("k", n): 1})
		add(fmt.Sprintf("long-key-escaped-%d", n), map[string]interface{}{strings.Repeat("<", n/6) + strings.Repeat("k", n%6): 1})
	}
	// Unicode code points one by one, as values and keys.
	var sorted []string
	for _, r := range runePool {
		sorted = append(sorted, string(r))
	}
	sort.Strings(sorted)
	for i, s := range sorted {
		add(fmt.Sprintf("rune-%d", i), map[string]interface{}{"v": s, "w": "a" + s + "b", s: 1, "x" + s: 2})
	}
}

// Hand-picked, readable cases written as separate files under golden/yaml/named.
var namedCases = []struct{ name, json string }{
	{"deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"cluster.x-k8s.io/provider":"infrastructure-docker","clusterctl.cluster.x-k8s.io":""},"name":"capd-controller-manager","namespace":"capd-system"},"spec":{"replicas":1,"selector":{"matchLabels":{"cluster.x-k8s.io/provider":"infrastructure-docker","control-plane":"controller-manager"}},"template":{"metadata":{"labels":{"control-plane":"controller-manager"}},"spec":{"containers":[{"args":["--leader-elect","--diagnostics-address=${CAPD_DIAGNOSTICS_ADDRESS:=:8443}","--insecure-diagnostics=${CAPD_INSECURE_DIAGNOSTICS:=false}"],"command":["/manager"],"image":"gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10","name":"manager","ports":[{"containerPort":9443,"name":"webhook-server","protocol":"TCP"}],"resources":{},"securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"privileged":false,"runAsGroup":65532,"runAsUser":65532}}],"terminationGracePeriodSeconds":10,"tolerations":[{"effect":"NoSchedule","key":"node-role.kubernetes.io/master"}]}}}}`},
	{"crd-description", `{"description":"APIEndpoint represents a reachable Kubernetes API endpoint. This sentence is long enough that it has to be folded at the eighty column limit, twice or even three times.","properties":{"host":{"description":"host is the hostname on which the API server is serving.","maxLength":512,"type":"string"},"port":{"description":"port is the port on which the API server is serving.","format":"int32","type":"integer"}},"required":["host","port"],"type":"object"}`},
	{"block-scalars", `{"clip":"line one\nline two\n","keep":"line one\n\n\n","strip":"line one\nline two","indent":"  leading\nspaces\n","trailing-space":"trail \nline","nested":[{"script":"#!/bin/sh\nset -e\necho \"hi\"\n"}]}`},
	{"quoting", `{"bools":["y","n","yes","no","on","off","true","True","NULL","~"],"numbers":["123","1.5","1e3","1_000","0o17","0b101","+1","-1",".inf","0","00","017","1:20"],"dates":["2021-01-01","2021-01-01T10:00:00Z"],"single":["@at","%pct","{x}","[x]","!x","&x","*a","|x",">x","#c","- x","-","a: b","x #y","x:"," lead","trail ","'q'"],"plain":["?x","x?",":x","=x","a,b","x#y","0.1.2","a\\b","<<","café"],"escaped":["tab\there","bell\u0007","emoji \ud83d\ude00","nbsp\u00a0x",""]}`},
	{"key-order", `{"zeta":1,"alpha":2,"Beta":3,"_x":4,"9":5,"10":6,"-":7,"a10":8,"a9":9,"cluster.x-k8s.io/provider":10,"clusterctl.cluster.x-k8s.io":11,"y":12,"n":13,"a01":14,"a1":15,"a001":16}`},
	{"numbers", `{"int":1,"float":3.14,"big":12345678901234567890,"huge":1e21,"small":1e-7,"tiny":0.0001,"million":1234567.5,"intfloat":2.0,"negzero":-0.0,"max":1.7976931348623157e308}`},
	{"nested-lists", `{"a":[[1,[2,3]],[],{},[{"b":[{"c":null}]}]],"m":[{"k":"v","l":["x","y"]}]}`},
	{"complex-keys", `{"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk":"long key","multi\nline":{"x":[1]},"":"empty key"}`},
}
