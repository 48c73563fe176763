package main

import (
	"fmt"
	"strings"
	"unicode"
)

// UnicodeData is Go's view of the Unicode properties drone/envsubst uses:
// unicode.IsLetter and unicode.IsDigit (identifier characters) and the simple
// case mappings unicode.ToUpper / unicode.ToLower (the case functions).
type UnicodeData struct {
	GoUnicodeVersion string    `json:"go_unicode_version"`
	Letter           [][2]rune `json:"letter"`
	Digit            [][2]rune `json:"digit"`
	ToUpper          [][2]rune `json:"to_upper"`
	ToLower          [][2]rune `json:"to_lower"`
}

func ranges(pred func(rune) bool) [][2]rune {
	var out [][2]rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !pred(r) {
			continue
		}
		if n := len(out); n > 0 && out[n-1][1] == r-1 {
			out[n-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out
}

func mapping(f func(rune) rune) [][2]rune {
	var out [][2]rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if m := f(r); m != r {
			out = append(out, [2]rune{r, m})
		}
	}
	return out
}

func unicodeData() UnicodeData {
	return UnicodeData{
		GoUnicodeVersion: unicode.Version,
		Letter:           ranges(unicode.IsLetter),
		Digit:            ranges(unicode.IsDigit),
		ToUpper:          mapping(unicode.ToUpper),
		ToLower:          mapping(unicode.ToLower),
	}
}

func rustTableSource() string {
	d := unicodeData()
	var b strings.Builder
	b.WriteString("//! Unicode tables, generated from Go's `unicode` package (Unicode ")
	b.WriteString(d.GoUnicodeVersion)
	b.WriteString(")\n//! by `go run ./cmd/envsubstref -rust-tables FILE` in conformance/oracle.\n")
	b.WriteString("//! Do not edit. `tests/envsubst_oracle.rs` checks them against golden/envsubst/unicode.json.\n\n")
	table := func(doc, name string, rows [][2]rune) {
		fmt.Fprintf(&b, "/// %s\n#[rustfmt::skip]\npub(super) static %s: &[(u32, u32)] = &[\n", doc, name)
		for i, r := range rows {
			if i%6 == 0 {
				b.WriteString("   ")
			}
			fmt.Fprintf(&b, " (0x%X, 0x%X),", r[0], r[1])
			if i%6 == 5 || i == len(rows)-1 {
				b.WriteString("\n")
			}
		}
		b.WriteString("];\n\n")
	}
	table("Inclusive ranges of `unicode.IsLetter`.", "LETTER", d.Letter)
	table("Inclusive ranges of `unicode.IsDigit`.", "DIGIT", d.Digit)
	table("`unicode.ToUpper` for every rune it changes, sorted.", "TO_UPPER", d.ToUpper)
	table("`unicode.ToLower` for every rune it changes, sorted.", "TO_LOWER", d.ToLower)
	return strings.TrimRight(b.String(), "\n") + "\n"
}
