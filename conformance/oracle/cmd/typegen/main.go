// Command typegen walks, with reflect, the Go API types clusterctl round-trips through
// runtime.DefaultUnstructuredConverter and prints a compact JSON type model that the
// Rust walker (src/typed) interprets.
//
// Model format:
//
//	{"roots": [{"apiVersion": "apps/v1", "kind": "Deployment", "type": "<id>"}, ...],
//	 "types": {"<id>": [{"n": "<json name>", "o": <omitempty>, "z": <omitzero>, "i": <inline>, "t": "<desc>"}, ...]}}
//
// Field order is Go declaration order. A type descriptor <desc> is one of
//
//	<kind>[|<go type>]    scalar: string, bool, int8..int64, uint8..uint64, float32, float64;
//	                      the Go type name follows when the type is named (error texts use it)
//	*<desc>  []<desc>  map:<desc>   pointer, slice, map with string keys
//	bytes                 []byte (base64 text)
//	@<id>                 a plain struct, walked field by field
//	!<special>            a type with its own (Un)MarshalJSON: quantity, intorstring, time,
//	                      microtime, duration, raw (RawExtension, apiextensions JSON, FieldsV1),
//	                      orbool@<id>, orarray@<id>, orstrarray@<id> (JSONSchemaPropsOr*)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	admv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
)

// rootDef is a Go type the model starts from, with the apiVersion it is registered as.
type rootDef struct {
	apiVersion string
	obj        interface{}
}

type root struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Type       string `json:"type"`
}

type field struct {
	Name      string `json:"n"`
	OmitEmpty bool   `json:"o,omitempty"`
	// OmitZero: the `omitzero` option (apimachinery v0.34's ObjectMeta.CreationTimestamp):
	// runtime.DefaultUnstructuredConverter and encoding/json leave the field out when it
	// holds its type's zero value.
	OmitZero bool   `json:"z,omitempty"`
	Inline   bool   `json:"i,omitempty"`
	Type     string `json:"t"`
}

type model struct {
	Roots []root             `json:"roots"`
	Types map[string][]field `json:"types"`
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

var specials = map[string]string{
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intorstring",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "raw",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "raw",
	// KubeadmControlPlane bootstrap tokens ("id.secret"): a valid token string
	// round-trips unchanged, which is what "raw" keeps.
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/api/v1beta1.BootstrapTokenString":                 "raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":                              "raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON":                         "raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":             "orbool",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrBool":        "orbool",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":            "orarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrArray":       "orarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray":      "orstrarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrStringArray": "orstrarray",
}

type gen struct {
	m    model
	todo []reflect.Type
}

func typeID(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func (g *gen) desc(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		if sp, ok := specials[typeID(t)]; ok {
			switch sp {
			case "orbool", "orarray", "orstrarray":
				// The schema type lives in the same package.
				schema, ok := t.FieldByName("Schema")
				if !ok {
					fail("%s has no Schema field", typeID(t))
				}
				return "!" + sp + g.desc(schema.Type.Elem())
			}
			return "!" + sp
		}
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			fail("type %s has a custom UnmarshalJSON the walker does not know", typeID(t))
		}
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if t.String() != t.Kind().String() {
			return t.Kind().String() + "|" + t.String()
		}
		return t.Kind().String()
	case reflect.Pointer:
		return "*" + g.desc(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + g.desc(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			fail("map with non-string key: %s", t)
		}
		return "map:" + g.desc(t.Elem())
	case reflect.Struct:
		id := typeID(t)
		if _, ok := g.m.Types[id]; !ok {
			g.m.Types[id] = nil
			g.todo = append(g.todo, t)
		}
		return "@" + id
	default:
		fail("unsupported kind %s (%s)", t.Kind(), t)
	}
	return ""
}

// fieldName mirrors runtime.fieldInfoFromField: the JSON name, omitempty and omitzero.
func fieldName(f reflect.StructField) (string, bool, bool) {
	tag := f.Tag.Get("json")
	if tag == "" {
		return strings.ToLower(f.Name[:1]) + f.Name[1:], false, false
	}
	items := strings.Split(tag, ",")
	omit, zero := false, false
	for _, it := range items[1:] {
		switch it {
		case "omitempty":
			omit = true
		case "omitzero":
			zero = true
		}
	}
	return items[0], omit, zero
}

func (g *gen) walk(t reflect.Type) {
	fields := []field{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			fail("%s.%s is unexported", typeID(t), f.Name)
		}
		name, omit, zero := fieldName(f)
		fd := field{Name: name, OmitEmpty: omit, OmitZero: zero, Inline: name == "", Type: g.desc(f.Type)}
		if fd.Inline && f.Type.Kind() != reflect.Struct {
			fail("%s.%s: inline field of kind %s", typeID(t), f.Name, f.Type.Kind())
		}
		fields = append(fields, fd)
	}
	g.m.Types[typeID(t)] = fields
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "typegen: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	g := &gen{m: model{Types: map[string][]field{}}}
	roots := []rootDef{
		{"apps/v1", appsv1.Deployment{}},
		{"apps/v1", appsv1.DaemonSet{}},
		{"rbac.authorization.k8s.io/v1", rbacv1.ClusterRoleBinding{}},
		{"rbac.authorization.k8s.io/v1", rbacv1.RoleBinding{}},
		{"admissionregistration.k8s.io/v1", admv1.MutatingWebhookConfiguration{}},
		{"admissionregistration.k8s.io/v1", admv1.ValidatingWebhookConfiguration{}},
		{"admissionregistration.k8s.io/v1beta1", admv1beta1.MutatingWebhookConfiguration{}},
		{"admissionregistration.k8s.io/v1beta1", admv1beta1.ValidatingWebhookConfiguration{}},
		{"apiextensions.k8s.io/v1", apiextv1.CustomResourceDefinition{}},
		{"apiextensions.k8s.io/v1beta1", apiextv1beta1.CustomResourceDefinition{}},
	}
	// Cluster API's v1beta1 kinds, in the model of clusterctl v1.10 only (see capi_roots.go).
	roots = append(roots, capiRoots()...)
	roots = append(roots, rootDef{"v1", corev1.Secret{}})
	for _, r := range roots {
		t := reflect.TypeOf(r.obj)
		d := g.desc(t)
		g.m.Roots = append(g.m.Roots, root{APIVersion: r.apiVersion, Kind: t.Name(), Type: strings.TrimPrefix(d, "@")})
	}
	for len(g.todo) > 0 {
		t := g.todo[0]
		g.todo = g.todo[1:]
		g.walk(t)
	}
	// Deterministic output: encoding/json sorts map keys; print one type per line.
	ids := make([]string, 0, len(g.m.Types))
	for id := range g.m.Types {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	rootsJSON, _ := json.Marshal(g.m.Roots)
	b.WriteString("{\"roots\":" + string(rootsJSON) + ",\n\"types\":{\n")
	for i, id := range ids {
		k, _ := json.Marshal(id)
		v, _ := json.Marshal(g.m.Types[id])
		b.WriteString(string(k) + ":" + string(v))
		if i < len(ids)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}}\n")
	os.Stdout.WriteString(b.String())
}
