// Command typedref is the reference for src/typed: it performs the typed round trip
// clusterctl performs (sigs.k8s.io/yaml.Unmarshal into map[string]interface{},
// runtime.DefaultUnstructuredConverter.FromUnstructured into the typed object, then
// ToUnstructured back) and writes the result as typed JSON (see writeValue).
//
// Usage:
//
//	typedref objects <in.yaml> <out.json>     golden for one fixture file
//	typedref quantity <in.json> <out.json>    resource.ParseQuantity + String() for a list of strings
//	typedref corpus <corpus-dir> <out.json>   sha256 digests of the round trip of every supported
//	                                          object in every *components*.yaml under corpus-dir
//
// Typed JSON: object keys sorted, strings escape only '"', '\\' and bytes < 0x20 (as \u00xx),
// int64 values are plain integers, float64 values are written in shortest 'e' form with a
// bare exponent ("3e0", "1.5e-7"), so a reader can tell the two apart.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	admv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var roots = map[string]reflect.Type{
	"apps/v1/Deployment": reflect.TypeOf(appsv1.Deployment{}),
	"apps/v1/DaemonSet":  reflect.TypeOf(appsv1.DaemonSet{}),
	"rbac.authorization.k8s.io/v1/ClusterRoleBinding":                     reflect.TypeOf(rbacv1.ClusterRoleBinding{}),
	"rbac.authorization.k8s.io/v1/RoleBinding":                            reflect.TypeOf(rbacv1.RoleBinding{}),
	"admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":        reflect.TypeOf(admv1.MutatingWebhookConfiguration{}),
	"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration":      reflect.TypeOf(admv1.ValidatingWebhookConfiguration{}),
	"admissionregistration.k8s.io/v1beta1/MutatingWebhookConfiguration":   reflect.TypeOf(admv1beta1.MutatingWebhookConfiguration{}),
	"admissionregistration.k8s.io/v1beta1/ValidatingWebhookConfiguration": reflect.TypeOf(admv1beta1.ValidatingWebhookConfiguration{}),
	"apiextensions.k8s.io/v1/CustomResourceDefinition":                    reflect.TypeOf(apiextv1.CustomResourceDefinition{}),
	"apiextensions.k8s.io/v1beta1/CustomResourceDefinition":               reflect.TypeOf(apiextv1beta1.CustomResourceDefinition{}),
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: typedref objects|quantity|corpus <in> <out>")
	}
	var out []byte
	switch os.Args[1] {
	case "objects":
		out = objects(os.Args[2])
	case "quantity":
		out = quantities(os.Args[2])
	case "corpus":
		out = corpus(os.Args[2])
	default:
		fail("unknown mode %q", os.Args[1])
	}
	if err := os.WriteFile(os.Args[3], out, 0o644); err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "typedref: "+format+"\n", args...)
	os.Exit(1)
}

// readDocs mirrors clusterctl's utilyaml.ToUnstructured: split with the apimachinery
// YAMLReader, unmarshal each document, skip empty ones.
func readDocs(path string) []map[string]interface{} {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []map[string]interface{}
	for {
		b, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail("%s: %v", path, err)
		}
		var m map[string]interface{}
		if err := yaml.Unmarshal(b, &m); err != nil {
			fail("%s: %v", path, err)
		}
		if m == nil {
			continue
		}
		docs = append(docs, m)
	}
	return docs
}

type result struct {
	supported bool
	value     map[string]interface{}
	err       error
}

func roundTrip(m map[string]interface{}) result {
	av, _ := m["apiVersion"].(string)
	k, _ := m["kind"].(string)
	t, ok := roots[av+"/"+k]
	if !ok {
		return result{}
	}
	obj := reflect.New(t).Interface()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		return result{supported: true, err: err}
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return result{supported: true, err: fmt.Errorf("ToUnstructured: %v", err)}
	}
	return result{supported: true, value: u}
}

func objects(path string) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i, m := range readDocs(path) {
		if i > 0 {
			b.WriteString(",\n")
		}
		rec := map[string]interface{}{"index": int64(i)}
		for _, k := range []string{"apiVersion", "kind"} {
			rec[k] = m[k]
		}
		r := roundTrip(m)
		switch {
		case !r.supported:
			rec["skipped"] = true
		case r.err != nil:
			rec["error"] = r.err.Error()
		default:
			rec["result"] = r.value
		}
		writeValue(&b, rec, " ")
	}
	b.WriteString("\n]\n")
	return []byte(b.String())
}

func quantities(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	var in []string
	if err := json.Unmarshal(data, &in); err != nil {
		fail("%s: %v", path, err)
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, s := range in {
		if i > 0 {
			b.WriteString(",\n")
		}
		rec := map[string]interface{}{"in": s}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			rec["error"] = err.Error()
		} else {
			rec["out"] = q.String()
		}
		writeValue(&b, rec, "")
	}
	b.WriteString("\n]\n")
	return []byte(b.String())
}

func corpus(dir string) []byte {
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && strings.Contains(info.Name(), "components") && strings.HasSuffix(info.Name(), ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	sort.Strings(files)
	out := map[string]interface{}{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		var recs []interface{}
		for i, m := range readDocs(f) {
			r := roundTrip(m)
			if !r.supported {
				continue
			}
			rec := map[string]interface{}{"index": int64(i), "kind": m["kind"]}
			if r.err != nil {
				rec["error"] = r.err.Error()
			} else {
				var b strings.Builder
				writeValue(&b, r.value, "")
				sum := sha256.Sum256([]byte(b.String()))
				rec["sha256"] = hex.EncodeToString(sum[:])
			}
			recs = append(recs, rec)
		}
		out[filepath.ToSlash(rel)] = recs
	}
	var b strings.Builder
	writeValue(&b, out, " ")
	b.WriteString("\n")
	return []byte(b.String())
}

// writeValue writes typed JSON; indent "" means compact.
func writeValue(b *strings.Builder, v interface{}, indent string) {
	writeAt(b, v, indent, 0)
}

func newline(b *strings.Builder, indent string, depth int) {
	if indent == "" {
		return
	}
	b.WriteString("\n")
	b.WriteString(strings.Repeat(indent, depth))
}

func writeAt(b *strings.Builder, v interface{}, indent string, depth int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(formatFloat(x))
	case string:
		writeString(b, x)
	case []interface{}:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, indent, depth+1)
			writeAt(b, e, indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteString("]")
	case map[string]interface{}:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, indent, depth+1)
			writeString(b, k)
			b.WriteString(":")
			if indent != "" {
				b.WriteString(" ")
			}
			writeAt(b, x[k], indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteString("}")
	default:
		fail("unexpected value of type %T", v)
	}
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(s, 'e')
	exp, err := strconv.Atoi(s[i+1:])
	if err != nil {
		fail("%v", err)
	}
	return s[:i] + "e" + strconv.Itoa(exp)
}

func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString("\\\"")
		case c == '\\':
			b.WriteString("\\\\")
		case c < 0x20:
			fmt.Fprintf(b, "\\u%04x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
