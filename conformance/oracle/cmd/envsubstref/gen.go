package main

import "strings"

// Pools the generator draws from. Everything is valid UTF-8.
var (
	names = []string{
		"A", "B", "C", "AB", "a", "_", "_x", "x1", "1", "9z", "A_B_C", "ab12",
		"é", "名前", "Ω", "ǅ", "ß",
	}
	// Characters that are not identifier characters for Go's unicode.IsLetter/IsDigit.
	badNames = []string{
		"A-b", "BA$R", "A.B", "Ⅷ", "e\u0301", "A B", "A!", "😀", "$A", "A$", "٣", "A\u200d",
	}
	values = []string{
		"", "a", "abc", "hello", "Hello World", "aaa", "abcabc", "a.b.c", "x/y/z",
		"a\\b", "a$b", "ba$r", "${A}", "$${A}", "}", "{", "Ünïcødé", "日本語テキスト",
		"😀ab😀", "ß", "İstanbul", "ǅemal", "ﬀ", "ΣΑΣ", "ǈ", "12345", "-5", "3",
		"file.tar.gz", "/path/to/file.tar.gz", "aXbXcX", "*?[]", "tab\there",
		"line\nbreak", " spaced ", "yes", "a: b", "é", "e\u0301", "$", "\\", "/",
		"ÀÉÎõü", "ﬁle", "ŉ", "ΐ", "ᾳ", "Ⅻ", "ⓐⓑ", "ĳ", "µ", "ſ", "K", "Å",
	}
	defaultWords = []string{
		"x", "default", "", "${B}", "${B:=deep}", "a${B}b", "a b", "\"\"", "$", "$$",
		"{", "]", ":", "日本", "\\", "${A}${B}", "${#A}", "x}y", "${", "$${A}", "=",
		"-", ":=", "${B:0:1}", "${C,,}", "tail${B}", "é",
	}
	nums = []string{
		"0", "1", "2", "3", "4", "-1", "-2", "-3", "10", "-10", "x", "+1", "00",
		"-0", " 1", "1 ", "999999999999999999999", "9223372036854775807",
		"-9223372036854775808", "${N}", "${B}", "1${B}", "5", "7", "-7", "0x1",
	}
	patterns = []string{
		"a", "b", "*", "?", "*.", ".*", "*/", "/*", "[abc]", "[!a]", "[^a]", "[a-c]*",
		"a*c", "\\*", "[", "[]", "[a-", "\\", "*b*", "?*", "日", "é*", "${B}", "[日-本]",
		"*[", "**", "a?c", "*.gz", ".*.*", "*a", "[\\]]", "[a\\-z]", "[]a]", "*[!x]",
		"?\u00e9", "[-a]", "ab", "X", "\\/", "\\\\", "$$", "${A}", "abc", "c", "😀",
	}
	replacements = []string{
		"", "X", "-", "${B}", "a/b", "\\/", "\\\\", "$$", "${A}", "日本", "x}", "\\x",
	}
	texts = []string{
		"", " ", "text", "a: ", "$", "$$", "$$$", "\\", "\\\\", "}", "{", "$X", "$A",
		"$$A", "${", "$}", "\n", "日本 ", "# comment ", "$${A}", "\t", ":", "\u0000",
		"value: ", "- ", "$\u00e9", "${}",
	}
)

func opPart() string {
	switch rng.Intn(12) {
	case 0:
		return ""
	case 1:
		ops := []string{":=", ":-", ":?", ":+", "="}
		return pick(ops) + pick(defaultWords)
	case 2:
		// Not supported by drone: no-colon forms, odd operators.
		ops := []string{"-", "+", "?", ":", "==", ":==", ":=-", "::"}
		return pick(ops) + pick(defaultWords)
	case 3:
		return ":" + pick(nums)
	case 4:
		return ":" + pick(nums) + ":" + pick(nums)
	case 5:
		return pick([]string{",", ",,", "^", "^^", ",^", "^,", ",,,", "^^^", ",x"})
	case 6, 7:
		return pick([]string{"#", "##", "%", "%%", "###", "%%%"}) + pick(patterns)
	case 8, 9:
		op := pick([]string{"/", "//", "/#", "/%"})
		switch rng.Intn(6) {
		case 0:
			return op + pick(patterns)
		case 1:
			return op + pick(patterns) + "/"
		case 2:
			return op + pick(patterns) + "//" + pick(replacements)
		default:
			return op + pick(patterns) + "/" + pick(replacements)
		}
	case 10:
		return pick([]string{"#", "%", "/", ":", "!", "@", "*", "[", "}"})
	default:
		return pick([]string{":=", ":-"}) + pick(defaultWords) + pick(defaultWords)
	}
}

func name() string {
	if rng.Intn(12) == 0 {
		return pick(badNames)
	}
	return pick(names)
}

func expr() string {
	switch rng.Intn(14) {
	case 0:
		return "${#" + name() + "}"
	case 1:
		return pick([]string{"${}", "${#}", "${##A}", "${#A:=x}", "${ A }", "${A }", "${ A}",
			"${\tA\t}", "${\nA}", "${ A:=x }", "${ $A }", "${ A B }", "${ _1 }", "${ A", "$ {A}"})
	default:
		return "${" + name() + opPart() + "}"
	}
}

func mutate(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	switch rng.Intn(4) {
	case 0: // truncate
		return string(r[:rng.Intn(len(r))])
	case 1: // insert a character
		i := rng.Intn(len(r) + 1)
		c := []rune(pick([]string{"$", "{", "}", " ", ":", "\\", "/", "é", "#", "${", "A"}))
		return string(append(r[:i:i], append(c, r[i:]...)...))
	case 2: // delete a character
		i := rng.Intn(len(r))
		return string(append(r[:i:i], r[i+1:]...))
	default: // legacy spacing inside the first "${"
		return strings.Replace(s, "${", "${ ", 1)
	}
}

func randomInput() string {
	var b strings.Builder
	n := 1 + rng.Intn(4)
	for i := 0; i < n; i++ {
		if rng.Intn(3) == 0 {
			b.WriteString(pick(texts))
		}
		b.WriteString(expr())
	}
	if rng.Intn(3) == 0 {
		b.WriteString(pick(texts))
	}
	s := b.String()
	if rng.Intn(6) == 0 {
		s = mutate(s)
	}
	return s
}

func randomVars() map[string]string {
	vars := map[string]string{}
	for _, n := range append(append([]string{"N"}, names...), badNames[:3]...) {
		if rng.Intn(10) < 6 {
			vars[n] = pick(values)
		}
	}
	if rng.Intn(4) == 0 {
		vars["N"] = pick(nums[:19])
	}
	return vars
}

// handcrafted inputs: the spec's verified examples and targeted edge cases.
var handcrafted = []string{
	"${A}", "$A", "$$", "$${A}", "$$$", "$$$$", "\\\\", "\\${A}", "${}", "${A", "${BA$R}", "${A-b}",
	"${A-word}", "${A+word}", "${C:=default}", "${D:=${A}}", "${E=\"\"}", "${A:=${B:=deep}}",
	"${A:0:3}", "${A/b/X}", "${A:=${B}}", "${A} ${A:=def}", "${A:=def} ${A}", "${A:=}", "${A=}",
	"${A,,}", "${#A}", "${A:+alt}", "${A:?msg}", "${ A }", "${ A}", "${A }", "${ A:=x }",
	"${A^}", "${A^^}", "${A,}", "${A#a}", "${A##*/}", "${A%.*}", "${A%%.*}", "${A//X/-}",
	"${A/#a/Z}", "${A/%c/Z}", "${A:1}", "${A:-1}", "${A: -1}", "${A:1:2}", "${A:-2:1}",
	"${A:2:-1}", "${A:0:-9}", "${A:x}", "${A:1:x}", "${A:1:2:3}", "${A:1::2}", "${A:${N}}",
	"${A:}", "${A:é}", "${AB:é}", "${A:😀}", "${A:=x", "${A:=${B}", "${A/x}", "${A/x/}",
	"${A///x}", "${A/\\//_}", "${A/\\\\/_}", "${A/$$/_}", "${A//${B}/x}", "${A/${B}/x}",
	"${A/x${B}/y}", "${A#}", "${A%}", "${A###}", "${A,^}", "${A^,}", "${A,,,}", "${#}",
	"${##A}", "${#A:=x}", "${1}", "${名前}", "${é:=x}", "${Ⅷ}", "${e\u0301}", "a\u0000${A}",
	"${A:=a\u0000b}", "${A}\u0000${B}", "${A:1:9223372036854775807}",
	"${A:9223372036854775807:1}", "${A:-9223372036854775808}", "${A:+1}", "${A#[}",
	"${A#\\}", "${A%[a-}", "${A#*}", "${A##*}", "${A%*}", "${A%%*}", "${A#?}", "${A%?}",
	"key: ${A}\nother: ${B:=b}\n# ${C}\n", "${A}${B}${C}", "${${A}}", "${A${B}}", "${A}}",
	"{${A}}", "${A:=}}", "${A:=x}y}", "${A:=${B:=${C:=${D:=deep}}}}", "${A//}", "${A//a}",
	"${A/%}", "${A/#}", "${A/#/x}", "${A/a/b/c}", "${A/a//}", "${A,,}${A^^}",
	"${A:=$$}", "${A:=a$$b}", "${A:=\\/}", "${A%[a-c]}", "${A%%*[a-c]}", "${A#[!a]}",
	"${A#[^a]}", "${A%/*}", "${A%%/*}", "${A##*/}", "${A#*/}", "${A:0:-1}", "${A%\\*}",
	"${A/#a/}", "${A/a/}", "${A//X/}", "${A/%c/}", "${A/%X/}",
	"${ $A }", "${ A$B }", "${ A B }", "${\tA\t}", "${\nA\n}", "${ A }${ B }", "$${ A }",
}

var handcraftedVars = []map[string]string{
	{},
	{"A": "abc", "B": "", "C": "Hello World", "D": "a$b", "N": "1"},
	{"A": "/path/to/file.tar.gz", "B": "b", "E": "${A}", "N": "-2"},
	{"A": "日本語テキスト", "B": "😀ab😀", "名前": "名", "é": "É", "1": "one", "N": "x"},
	{"A": "aXbXcX", "B": "X", "C": "", "D": "ΣΑΣ"},
	{"A": "ba$r", "B": "${A}", "C": "İstanbul"},
}

func generate() []Case {
	var cases []Case
	for _, in := range handcrafted {
		for _, v := range handcraftedVars {
			cases = append(cases, Case{Kind: "handcrafted", Input: in, Vars: v})
		}
	}
	// Every operator with every name and a few arguments, systematically.
	for _, n := range append(append([]string{}, names...), badNames...) {
		for _, op := range []string{"", ":=x", ":-x", ":?x", ":+x", "=x", "-x", "+x", ":1", ":1:2",
			":-2", ",", ",,", "^", "^^", "#a", "##*a", "%c", "%%c*", "/a/X", "//a/X", "/#a/X", "/%c/X"} {
			in := "${" + n + op + "}"
			cases = append(cases, Case{Kind: "systematic", Input: in, Vars: randomVars()})
		}
		cases = append(cases, Case{Kind: "systematic", Input: "${#" + n + "}", Vars: randomVars()})
	}
	// Substring offsets over multibyte values (invalid UTF-8 slices).
	for _, v := range []string{"日本語", "😀ab😀", "aé", "ÀÉÎõü", "abc"} {
		for _, off := range []string{"0", "1", "2", "3", "4", "5", "-1", "-2", "-3", "-5"} {
			for _, l := range []string{"", ":1", ":2", ":3", ":0", ":-1", ":-5"} {
				in := "${A:" + off + l + "}"
				cases = append(cases, Case{Kind: "substr", Input: in, Vars: map[string]string{"A": v}})
				in = "${B:=${A:" + off + l + "}}"
				cases = append(cases, Case{Kind: "substr-nested", Input: in, Vars: map[string]string{"A": v}})
			}
		}
		for _, op := range []string{"^", "^^", ",", ",,", "#?", "%?", "##?", "%%?", "#*", "%*", "//?/-"} {
			in := "${B:=${A:1:1}}+${C:=${A:1:1}}"
			in = "${B" + op + "}" + in
			cases = append(cases, Case{Kind: "bytes", Input: in, Vars: map[string]string{"A": v, "B": string([]rune(v)[1:])}})
		}
	}
	// Glob patterns against many values.
	for _, p := range patterns {
		for _, op := range []string{"#", "##", "%", "%%"} {
			in := "${A" + op + p + "}"
			cases = append(cases, Case{Kind: "glob", Input: in, Vars: map[string]string{"A": pick(values), "B": pick(values)}})
		}
	}
	// Character soup over the grammar's alphabet: explores parser states.
	for i := 0; i < 1500; i++ {
		cases = append(cases, Case{Kind: "soup", Input: soup(), Vars: randomVars()})
	}
	// Nested substitutions in every argument position.
	for i := 0; i < 600; i++ {
		cases = append(cases, Case{Kind: "nested", Input: nestedExpr(3), Vars: randomVars()})
	}
	for len(cases) < 5800 {
		cases = append(cases, Case{Kind: "random", Input: randomInput(), Vars: randomVars()})
	}
	return cases
}

var soupAlphabet = []string{
	"$", "$", "{", "${", "${", "}", "}", ":", "=", "-", "?", "+", ",", "^", "#", "%", "/",
	"\\", "*", "[", "]", "A", "B", "a", "1", "0", "-1", "é", "😀", " ", "\t", "_", "!", "\u0000",
}

func soup() string {
	var b strings.Builder
	b.WriteString(pick([]string{"", "${", "${A", "${A", "${AB", "x${B"}))
	n := 1 + rng.Intn(12)
	for i := 0; i < n; i++ {
		b.WriteString(pick(soupAlphabet))
	}
	if rng.Intn(2) == 0 {
		b.WriteString("}")
	}
	return b.String()
}

func nestedExpr(depth int) string {
	if depth == 0 || rng.Intn(3) == 0 {
		return expr()
	}
	inner := func() string { return nestedExpr(depth - 1) }
	n := pick(names[:6])
	switch rng.Intn(7) {
	case 0:
		return "${" + n + pick([]string{":=", ":-", "=", ":+"}) + inner() + pick([]string{"", "x", inner()}) + "}"
	case 1:
		return "${" + n + ":" + inner() + "}"
	case 2:
		return "${" + n + ":" + pick(nums) + ":" + inner() + "}"
	case 3:
		return "${" + n + pick([]string{"#", "##", "%", "%%"}) + inner() + "}"
	case 4:
		return "${" + n + pick([]string{"/", "//", "/#", "/%"}) + inner() + "/" + inner() + "}"
	case 5:
		return "${" + n + pick([]string{"/", "//"}) + pick(patterns) + "/" + inner() + "}"
	default:
		return inner() + pick(texts) + inner()
	}
}
