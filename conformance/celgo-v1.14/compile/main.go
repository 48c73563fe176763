// celcost prints cel-go's static cost estimates for x-kubernetes-validations rules the way
// Cluster API v1.14.2's ClusterClass webhook compiles a new rule at the root of a variable
// schema: apiextensions-apiserver v0.36.3 and cel-go v0.29.0 (its go.mod), the base
// environment of environment.DefaultCompatibilityVersion() (its envSetVersion), the
// new-expressions loader (a rule the class did not have before). The input is a JSON list
// of {schema, rule, messageExpression}; each result is printed as one JSON line. See
// regen.sh.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type tcase struct {
	Schema json.RawMessage `json:"schema"`
	Rule   string          `json:"rule"`
	Msg    string          `json:"messageExpression"`
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var cases []tcase
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	for _, c := range cases {
		var v1 apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(c.Schema, &v1); err != nil {
			panic(err)
			continue
		}
		v1.XValidations = apiextensionsv1.ValidationRules{{Rule: c.Rule, MessageExpression: c.Msg}}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
			panic(err)
			continue
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			panic(err)
			continue
		}
		dt := model.SchemaDeclType(s, true)
		if dt == nil {
			panic("no decl type")
			continue
		}
		res, err := cel.Compile(s, dt, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
		if err != nil {
			panic(err)
			continue
		}
		r := res[0]
		out := map[string]interface{}{"schema": c.Schema, "rule": c.Rule}
		if c.Msg != "" {
			out["messageExpression"] = c.Msg
		}
		switch {
		case r.Error != nil:
			out["error"] = r.Error.Detail
		case r.MessageExpressionError != nil:
			out["error"] = r.MessageExpressionError.Detail
		default:
			out["cost"] = r.MaxCost
			out["cardinality"] = r.MaxCardinality
			if c.Msg != "" {
				out["messageCost"] = r.MessageExpressionMaxCost
			}
		}
		line, _ := json.Marshal(out)
		fmt.Println(string(line))
	}
}
