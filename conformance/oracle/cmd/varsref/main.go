// Command varsref is the CEL reference for src/topology/variables/cel: it evaluates
// x-kubernetes-validations rules on values with apiextensions-apiserver's CEL validator
// (k8s.io/apiextensions-apiserver v0.32.3, the version clusterctl v1.10.10 uses), the way
// Cluster API validates a variable value: the variable schema wrapped as property
// "variableValue" of an object, the field path "value.variableValue" shown as "value".
//
// Usage:
//
//	varsref cel <cases.yaml> <out.json>
//
// cases.yaml is a list of {name, schema, value, rules}; every rule is evaluated on its
// own, as the only rule at the root of the schema. out.json maps each case name to one
// entry per rule: "" when the rule holds, else the field errors' texts joined by "\n".
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

type celCase struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Value  json.RawMessage `json:"value"`
	Rules  []string        `json:"rules"`
}

func main() {
	if len(os.Args) != 4 || os.Args[1] != "cel" {
		fmt.Fprintln(os.Stderr, "usage: varsref cel <cases.yaml> <out.json>")
		os.Exit(2)
	}
	if err := run(os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	var cases []celCase
	if err := json.Unmarshal(jsonData, &cases); err != nil {
		return err
	}
	results := map[string][]string{}
	for _, c := range cases {
		var res []string
		for _, rule := range c.Rules {
			r, err := evaluate(c, rule)
			if err != nil {
				return fmt.Errorf("%s: %q: %v", c.Name, rule, err)
			}
			res = append(res, r)
		}
		results[c.Name] = res
	}
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{\n")
	for i, n := range names {
		k, _ := json.Marshal(n)
		v, _ := json.Marshal(results[n])
		fmt.Fprintf(&b, "  %s: %s", k, v)
		if i < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

func evaluate(c celCase, rule string) (string, error) {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(c.Schema, &v1); err != nil {
		return "", err
	}
	v1.XValidations = apiextensionsv1.ValidationRules{{Rule: rule}}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return "", err
	}
	wrapped := &apiextensions.JSONSchemaProps{
		Type:       "object",
		Properties: map[string]apiextensions.JSONSchemaProps{"variableValue": internal},
	}
	ss, err := structuralschema.NewStructural(wrapped)
	if err != nil {
		return "", err
	}
	// CAPI decodes values with apimachinery's JSON decoder (int64 for integers).
	var value interface{}
	if err := utiljson.Unmarshal(c.Value, &value); err != nil {
		return "", err
	}
	validator := cel.NewValidator(ss, false, celconfig.PerCallLimit)
	if validator == nil {
		return "", fmt.Errorf("no CEL validator")
	}
	errs, _ := validator.Validate(context.Background(), field.NewPath("value"), ss,
		map[string]interface{}{"variableValue": value}, nil, celconfig.RuntimeCELCostBudget)
	texts := make([]string, 0, len(errs))
	for _, e := range errs {
		e.Field = strings.Replace(e.Field, "value.variableValue", "value", 1)
		texts = append(texts, e.Error())
	}
	return strings.Join(texts, "\n"), nil
}
