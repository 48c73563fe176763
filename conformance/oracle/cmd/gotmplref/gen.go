package main

import (
	"encoding/json"
	"fmt"
)

// genExprs are template snippets over two inputs .x and .y; genValues are the
// JSON values .x and .y take. Every expression runs with every (x, y) pair from
// genPairs, which gives type, missing-key and nil coverage for each construct.
var genExprs = []string{
	`{{ .x }}`,
	`{{ .x.a }}`,
	`{{ print .x }}|{{ println .x .y }}|{{ print .x .y }}`,
	`{{ printf "%v" .x }}`,
	`{{ printf "%s" .x }}`,
	`{{ printf "%d" .x }}`,
	`{{ printf "%q" .x }}`,
	`{{ printf "%t" .x }}`,
	`{{ printf "%x" .x }}`,
	`{{ printf "%5.2f|%e|%g" .x .x .x }}`,
	`{{ printf "%T" .x }}`,
	`{{ printf "%v-%v" .x .y }}`,
	`{{ if .x }}T{{ else }}F{{ end }}`,
	`{{ with .x }}[{{ . }}]{{ else }}none{{ end }}`,
	`{{ range .x }}<{{ . }}>{{ else }}empty{{ end }}`,
	`{{ range $k, $v := .x }}{{ $k }}={{ $v }};{{ end }}`,
	`{{ len .x }}`,
	`{{ index .x 0 }}`,
	`{{ index .x "a" }}`,
	`{{ eq .x .y }}`,
	`{{ ne .x .y }}`,
	`{{ lt .x .y }}`,
	`{{ ge .x .y }}`,
	`{{ and .x .y }}|{{ or .x .y }}|{{ not .x }}`,
	`{{ eq .x "a" 1.5 true }}`,
	`{{ html .x }}|{{ js .x }}|{{ urlquery .x }}`,
	`{{ default "dflt" .x }}`,
	`{{ empty .x }}`,
	`{{ coalesce .x .y "z" }}`,
	`{{ ternary "yes" "no" .x }}`,
	`{{ quote .x }}|{{ squote .x .y }}`,
	`{{ upper .x }}`,
	`{{ lower .x }}|{{ title .x }}`,
	`{{ trim .x }}|{{ trimPrefix "v" .x }}|{{ trimSuffix "0" .x }}`,
	`{{ replace "." "-" .x }}`,
	`{{ contains "a" .x }}|{{ hasPrefix "v" .x }}|{{ hasSuffix "1" .x }}`,
	`{{ split "." .x }}`,
	`{{ splitList "." .x }}`,
	`{{ join "," .x }}`,
	`{{ toString .x }}`,
	`{{ int .x }}|{{ int64 .x }}|{{ float64 .x }}`,
	`{{ atoi .x }}`,
	`{{ add .x 1 }}|{{ sub .x 1 }}|{{ mul .x 2 }}`,
	`{{ div .x 2 }}|{{ mod .x 3 }}`,
	`{{ max .x 3 }}|{{ min .x 3 }}`,
	`{{ add1 .x }}|{{ addf .x 0.5 }}`,
	`{{ toJson .x }}`,
	`{{ toPrettyJson .x }}`,
	`{{ toRawJson .x }}`,
	`{{ b64enc .x }}`,
	`{{ sha256sum .x }}`,
	`{{ typeOf .x }}|{{ kindOf .x }}`,
	`{{ list .x .y }}`,
	`{{ dict "k" .x "l" .y }}`,
	`{{ first .x }}|{{ last .x }}`,
	`{{ rest .x }}|{{ initial .x }}`,
	`{{ uniq .x }}`,
	`{{ has .y .x }}`,
	`{{ sortAlpha .x }}`,
	`{{ keys .x | sortAlpha }}`, // Go map order is random: sorted to be reproducible
	`{{ hasKey .x "a" }}`,
	`{{ get .x "a" }}`,
	`{{ semverCompare ">= 1.24" .x }}`,
	`{{ semverCompare "< v1.25-0" .x }}`,
	`{{ $v := semver .x }}{{ $v.Major }}.{{ $v.Minor }}.{{ $v.Patch }}`,
	`{{ regexMatch "^v[0-9]+" .x }}`,
	`{{ regexReplaceAll "([0-9]+)" .x "<$1>" }}`,
	`{{ indent 2 .x }}|{{ nindent 2 .x }}`,
	`{{ trunc 3 .x }}`,
	`{{ .x | quote | upper }}`,
	`{{ printf "%s-%s" .x .y | lower }}`,
	`{{ $a := .x }}{{ if $a }}{{ $a = .y }}{{ end }}{{ $a }}`,
	`{{ if eq .x .y }}same{{ else if .x }}x{{ else }}other{{ end }}`,
	`{{ range $i, $e := .x }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $i }}:{{ $e }} {{ end }}`,
	`{{- .x -}} {{- .y -}}`,
	`{{ not (empty .x) }}`,
	`{{ (index .x 0).a }}`,
	`{{ len (toString .x) }}`,
	`{{ toYaml .x }}`,
	`{{ cat .x .y }}`,
	`{{ deepEqual .x .y }}`,
	`{{ compact .x }}`,
	`{{ pick .x "a" }}|{{ omit .x "a" }}`,
	`{{ values .x | sortAlpha }}`, // likewise
	`{{ until .x }}`,
	`{{ repeat 2 .x }}`,
	`{{ substr 1 3 .x }}`,
	`{{ abbrev 5 .x }}`,
	`{{ snakecase .x }}|{{ camelcase .x }}|{{ kebabcase .x }}`,
	`{{ fromJson .x }}`,
	`{{ all .x .y }}|{{ any .x .y }}`,
}

var genValues = []string{
	`"abc"`, `""`, `"v1.25.3"`, `"1.24.0-rc.1+build.5"`, `"Hello, 世界 <&>'\""`,
	`"a.b.c"`, `"42"`, `" trim me  "`,
	`0`, `1`, `3`, `-2`, `2.5`, `1000000`, `1e21`, `123456789012`, `0.000001`, `-0.5`,
	`true`, `false`, `null`,
	`[]`, `["b","a","b"]`, `[1,2.5,"x",null,true]`, `[{"a":1},{"a":2}]`,
	`{}`, `{"a":"A","b":2}`, `{"a":{"a":"nested"},"z":[1,2]}`,
}

// genPairs picks (x, y) data documents: every value as x with a fixed y, every
// value as y with a fixed x, and x or y missing.
func genPairs() []string {
	var out []string
	for _, v := range genValues {
		out = append(out, fmt.Sprintf(`{"x":%s,"y":"a"}`, v))
	}
	for _, v := range []string{`"abc"`, `1`, `2.5`, `true`, `null`, `["a"]`, `{"a":1}`} {
		out = append(out, fmt.Sprintf(`{"x":"a","y":%s}`, v))
		out = append(out, fmt.Sprintf(`{"x":1,"y":%s}`, v))
	}
	out = append(out, `{"y":"a"}`, `{"x":"a"}`, `{}`)
	return out
}

func generated() []Result {
	var results []Result
	pairs := genPairs()
	for i, e := range genExprs {
		for j, d := range pairs {
			results = append(results, run(fmt.Sprintf("gen-%d-%d", i, j), e, json.RawMessage(d)))
		}
	}
	return results
}
