//! ClusterClass-side variable rules (internal/topology/variables/
//! clusterclass_variable_validation.go), the subset that needs no CEL type checker:
//! unique, non-empty names without `.` and other than `builtin`; supported types;
//! `additionalProperties` and `properties` mutually exclusive; `x-kubernetes-validations`
//! rule/message/reason/fieldPath constraints ([`super::field_path`]); CEL syntax and
//! `oldSelf` under `items`; `example` and `enum` values valid against the schema and its
//! CEL rules. Schema errors come before CEL errors, as Go's `OpenAPISchemaErrorList`.

use crate::model::pointer::Pointer as _;
use serde_json::Value;

use super::cel;
use super::cel::cost::budget::{self, TotalCost};
use super::field_error::{child, index, invalid_object_message, key, BadValue, FieldError};
use super::metadata;
use super::openapi;
use super::schema::Schema;
use super::structural::structural_errors;
use super::unknown_fields::has_unknown_fields;
use crate::error::{Error, Result};
use crate::go::quote::quote as go_quote;

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];
const REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// Field errors for `spec.variables` of a ClusterClass.
pub fn variable_definition_errors(cluster_class: &Value) -> Vec<FieldError> {
    variable_definition_errors_with(cluster_class, true)
}

/// [`variable_definition_errors`]; `cost_budget`: whether CEL cost estimates are checked
/// (cel-go v0.22's, Cluster API v1.10's; on the measured rules the same as v0.29's,
/// Cluster API v1.14's, or lower).
pub fn variable_definition_errors_with(
    cluster_class: &Value,
    cost_budget: bool,
) -> Vec<FieldError> {
    errors_of(cluster_class, cost_budget, None)
}

/// [`variable_definition_errors`] of a `cluster.x-k8s.io/v1beta2` ClusterClass (Cluster
/// API v1.14): a variable's metadata is read from `deprecatedV1Beta1Metadata` only, and
/// its errors are reported at that path.
pub fn variable_definition_errors_v1beta2(cluster_class: &Value) -> Vec<FieldError> {
    errors_of(cluster_class, true, Some("deprecatedV1Beta1Metadata"))
}

/// The variable rules; `metadata_field`: where a variable's metadata is (`None`: v1beta1's
/// `metadata`, or a converted v1beta2 class's `deprecatedV1Beta1Metadata`, reported as
/// `metadata`).
fn errors_of(
    cluster_class: &Value,
    cost_budget: bool,
    metadata_field: Option<&str>,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let vars = cluster_class
        .ptr("/spec/variables")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let base = "spec.variables";
    // A set: an answer of 150,000 definitions (an extension's) is checked in linear time.
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for v in vars {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        if !seen.insert(name) {
            errs.push(FieldError::invalid(
                &child(&key(base, name), "name"),
                BadValue::Str(name.into()),
                format!(
                    "variable name must be unique. Variable with name {} is defined more than once",
                    go_quote(name)
                ),
            ));
        }
    }
    for v in vars {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let path = key(base, name);
        let name_path = child(&path, "name");
        if name.is_empty() {
            errs.push(FieldError::required(
                &name_path,
                "variable name must be defined",
            ));
        }
        if name == "builtin" {
            errs.push(FieldError::invalid(
                &name_path,
                BadValue::Str(name.into()),
                "\"builtin\" is a reserved variable name",
            ));
        }
        if name.contains('.') {
            errs.push(FieldError::invalid(
                &name_path,
                BadValue::Str(name.into()),
                "variable name cannot contain \".\"",
            ));
        }
        errs.extend(match metadata_field {
            None => metadata::metadata_errors(
                v.get("metadata").or(v.get("deprecatedV1Beta1Metadata")),
                &format!("{path}.metadata"),
            ),
            Some(f) => metadata::metadata_errors(v.get(f), &child(&path, f)),
        });
        let schema_path = format!("{path}.schema.openAPIV3Schema");
        if let Some(raw_schema) = v.ptr("/schema/openAPIV3Schema") {
            x_metadata_errors(raw_schema, &schema_path, &mut errs);
        }
        match v
            .ptr("/schema/openAPIV3Schema")
            .map(|s| Schema::from_value(s, &schema_path))
        {
            Some(Ok(s)) => root_schema_errors(&s, &schema_path, cost_budget, &mut errs),
            Some(Err(e)) => errs.push(FieldError::invalid(
                &schema_path,
                BadValue::Str(String::new()),
                e.message().to_string(),
            )),
            // Go's zero-value schema: no type.
            None => root_schema_errors(&Schema::default(), &schema_path, cost_budget, &mut errs),
        }
    }
    errs
}

/// `x-metadata` labels and annotations, recursively through additionalProperties,
/// properties and items (`validateClusterClassXVariableMetadata`).
fn x_metadata_errors(schema: &Value, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(x) = schema.get("x-metadata").filter(|x| !x.is_null()) {
        errs.extend(metadata::metadata_errors(
            Some(x),
            &child(path, "x-metadata"),
        ));
    }
    if let Some(ap) = schema.get("additionalProperties").filter(|x| x.is_object()) {
        x_metadata_errors(ap, &child(path, "additionalProperties"), errs);
    }
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (k, p) in props {
            x_metadata_errors(p, &key(&child(path, "properties"), k), errs);
        }
    }
    if let Some(it) = schema.get("items").filter(|x| x.is_object()) {
        x_metadata_errors(it, &child(path, "items"), errs);
    }
}

/// `validateRootSchema`: structural errors, else default errors, else the schema rules;
/// each stage stops the next.
fn root_schema_errors(s: &Schema, path: &str, cost_budget: bool, errs: &mut Vec<FieldError>) {
    let structural = structural_errors(s, path);
    if !structural.is_empty() {
        errs.extend(structural);
        return;
    }
    let mut defaults = Vec::new();
    default_errors(s, path, &mut defaults);
    if !defaults.is_empty() {
        errs.extend(defaults);
        return;
    }
    let mut total = if cost_budget {
        TotalCost::default()
    } else {
        TotalCost::off()
    };
    let e = schema_errors(s, path, None, (true, Some(1)), &mut total);
    errs.extend(e.schema);
    errs.extend(e.cel);
    if let Some((expensive, msg)) = total.exceeded() {
        for p in expensive {
            errs.push(FieldError::forbidden(p, budget::CONTRIBUTED));
        }
        errs.push(FieldError::forbidden(path, msg));
    }
}

/// `structuraldefaulting.ValidateDefaults` with pruned defaults required: every default
/// (of the schema, its items and properties) must have no unknown fields, must validate
/// against its schema, and then must pass its CEL rules.
fn default_errors(s: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(d) = &s.default {
        let default_path = child(path, "default");
        if has_unknown_fields(d, s) {
            errs.push(FieldError::invalid(
                &default_path,
                openapi::go_value(d),
                "must not have unknown fields",
            ));
        }
        let mut w = Vec::new();
        let oa = openapi::validate(s, d, "", &mut w);
        if !oa.is_empty() {
            errs.extend(openapi::to_field_errors(&oa, &default_path, None));
        } else {
            let mut out = cel::Outcome::default();
            cel::validate(s, d, &default_path, None, &mut out);
            errs.extend(out.errors);
        }
    }
    if let Some(it) = &s.items {
        default_errors(it, &child(path, "items"), errs);
    }
    for (k, p) in &s.properties {
        default_errors(p, &key(&child(path, "properties"), k), errs);
    }
}

/// Go's `OpenAPISchemaErrorList` of one schema level and everything below it: the
/// schema errors, then the CEL errors.
#[derive(Default)]
struct SchemaErrs {
    schema: Vec<FieldError>,
    cel: Vec<FieldError>,
}

impl SchemaErrs {
    fn append(&mut self, o: SchemaErrs) {
        self.schema.extend(o.schema);
        self.cel.extend(o.cel);
    }
}

/// `validateSchema`; `uncorrelatable` is the path of the outermost `items` above; `root`
/// for the variable's schema itself; `card` the node's cardinality (`Some(1)` at the
/// root, `None` under a list or map without a maximum); `total` the variable's CEL cost
/// total.
fn schema_errors(
    s: &Schema,
    path: &str,
    uncorrelatable: Option<&str>,
    (root, card): (bool, Option<u64>),
    total: &mut TotalCost,
) -> SchemaErrs {
    let mut e = SchemaErrs::default();
    if !s.type_.is_empty() && !TYPES.contains(&s.type_.as_str()) {
        let valid: Vec<String> = TYPES.iter().map(|t| t.to_string()).collect();
        e.schema.push(FieldError::not_supported(
            &child(path, "type"),
            BadValue::Str(s.type_.clone()),
            &valid,
        ));
        return e;
    }
    let mut w = Vec::new();
    if let Some(ex) = &s.example {
        let oa = openapi::validate(s, ex, "", &mut w);
        e.schema
            .extend(openapi::to_field_errors(&oa, &child(path, "example"), None));
    }
    // Go skips a nil (null) enum value.
    for (i, v) in s.enum_.iter().enumerate().filter(|(_, v)| !v.is_null()) {
        let oa = openapi::validate(s, v, "", &mut w);
        e.schema.extend(openapi::to_field_errors(
            &oa,
            &index(&child(path, "enum"), i),
            None,
        ));
    }
    if let Some(ap) = &s.additional_properties {
        if !s.properties.is_empty() {
            e.schema.push(FieldError::forbidden(
                path,
                "additionalProperties and properties are mutually exclusive",
            ));
        }
        let c = budget::child_cardinality(card, &s.type_, true, s.max_properties);
        e.append(schema_errors(
            ap,
            &child(path, "additionalProperties"),
            uncorrelatable,
            (false, c),
            total,
        ));
    }
    for (k, p) in &s.properties {
        let c = budget::child_cardinality(
            card,
            &s.type_,
            s.additional_properties.is_some(),
            s.max_properties,
        );
        e.append(schema_errors(
            p,
            &key(&child(path, "properties"), k),
            uncorrelatable,
            (false, c),
            total,
        ));
    }
    if let Some(it) = &s.items {
        let items = child(path, "items");
        let c = budget::child_cardinality(card, &s.type_, false, s.max_items);
        e.append(schema_errors(
            it,
            &items,
            Some(uncorrelatable.unwrap_or(&items)),
            (false, c),
            total,
        ));
    }
    if !s.validations.is_empty() {
        rules_errors(s, path, uncorrelatable, (root, card), total, &mut e);
    }
    e
}

/// The `x-kubernetes-validations` part of `validateSchema`: each rule's fields (schema
/// errors); with none here or below, the rules' compilation (syntax only) and `oldSelf`
/// use; with no error at all, `example` and `enum` against the rules.
fn rules_errors(
    s: &Schema,
    path: &str,
    uncorrelatable: Option<&str>,
    (root, card): (bool, Option<u64>),
    total: &mut TotalCost,
    e: &mut SchemaErrs,
) {
    let vp = child(path, "x-kubernetes-validations");
    for (i, r) in s.validations.iter().enumerate() {
        rule_field_errors(s, r, &index(&vp, i), &mut e.schema);
    }
    if !e.schema.is_empty() {
        return;
    }
    if root {
        if let Some(internal) = root_cel_error(s, path) {
            e.cel.push(internal);
            return;
        }
    }
    let decl = cel::decl::decl_of(s, root);
    for (i, r) in s.validations.iter().enumerate() {
        let rp = child(&index(&vp, i), "rule");
        if let Some(err) = rule_syntax_error(&r.rule) {
            // A rule that does not compile costs nothing.
            total.observe(&rp, Some(0));
            e.cel.push(FieldError::invalid(
                &rp,
                go_validation_rule(r),
                format!("compilation failed: ERROR: <input>:{err}"),
            ));
            continue;
        }
        // cel-go's type checker and AST validators: a rule that does not compile costs
        // nothing; a messageExpression that does not compile is not costed.
        if let Some(detail) = decl
            .as_ref()
            .and_then(|d| cel::check::rule_error(&r.rule, d))
        {
            total.observe(&rp, Some(0));
            e.cel
                .push(FieldError::invalid(&rp, go_validation_rule(r), detail));
            continue;
        }
        let msg_error = message_expression_error(r, decl.as_ref());
        let costed = match msg_error {
            Some(_) => std::borrow::Cow::Owned(super::schema::ValidationRule {
                message_expression: String::new(),
                ..r.clone()
            }),
            None => std::borrow::Cow::Borrowed(r),
        };
        e.cel.extend(budget::rule_errors(
            &costed,
            decl.as_ref(),
            card,
            &index(&vp, i),
            total,
        ));
        if let Some(detail) = msg_error {
            e.cel.push(FieldError::invalid(
                &child(&index(&vp, i), "messageExpression"),
                go_validation_rule(r),
                detail,
            ));
        }
        if let (Some(u), Ok(ast)) = (uncorrelatable, cel::parser::parse(&r.rule)) {
            if cel::parser::references(&ast, "oldSelf") {
                e.cel.push(FieldError::invalid(
                    &rp,
                    BadValue::Str(r.rule.clone()),
                    format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"),
                ));
            }
        }
    }
    if !e.cel.is_empty() {
        return;
    }
    let mut out = cel::Outcome::default();
    if let Some(ex) = &s.example {
        cel::validate(s, ex, &child(path, "example"), None, &mut out);
    }
    for (i, v) in s.enum_.iter().enumerate().filter(|(_, v)| !v.is_null()) {
        cel::validate(s, v, &index(&child(path, "enum"), i), None, &mut out);
    }
    e.cel.extend(out.errors);
}

/// One rule's field checks, in Go's order: rule/message, messageExpression, reason,
/// fieldPath.
fn rule_field_errors(
    s: &Schema,
    r: &super::schema::ValidationRule,
    rp: &str,
    errs: &mut Vec<FieldError>,
) {
    let msg = r.message.trim();
    let has_nl = |t: &str| t.contains('\n') || t.contains('\r');
    if r.rule.trim().is_empty() {
        errs.push(FieldError::required(
            &child(rp, "rule"),
            "rule is not specified",
        ));
    } else if !r.message.is_empty() && msg.is_empty() {
        errs.push(FieldError::invalid(
            &child(rp, "message"),
            BadValue::Str(r.message.clone()),
            "message must be non-empty if specified",
        ));
    } else if r.message.len() > 2048 {
        let head: String = r.message.chars().take(10).collect();
        errs.push(FieldError::invalid(
            &child(rp, "message"),
            BadValue::Str(format!("{head}...")),
            "message must have a maximum length of 2048 characters",
        ));
    } else if has_nl(msg) {
        errs.push(FieldError::invalid(
            &child(rp, "message"),
            BadValue::Str(r.message.clone()),
            "message must not contain line breaks",
        ));
    } else if has_nl(r.rule.trim()) && msg.is_empty() {
        errs.push(FieldError::required(
            &child(rp, "message"),
            "message must be specified if rule contains line breaks",
        ));
    }
    if !r.message_expression.is_empty() && r.message_expression.trim().is_empty() {
        errs.push(FieldError::required(
            &child(rp, "messageExpression"),
            "messageExpression must be non-empty if specified",
        ));
    }
    if !r.reason.is_empty() && !REASONS.contains(&r.reason.as_str()) {
        let valid: Vec<String> = REASONS.iter().map(|t| t.to_string()).collect();
        errs.push(FieldError::not_supported(
            &child(rp, "reason"),
            BadValue::Str(r.reason.clone()),
            &valid,
        ));
    }
    field_path_errors(s, &r.field_path, &child(rp, "fieldPath"), errs);
}

/// A rule's `fieldPath`: non-blank if set, on one line, a path into the schema.
fn field_path_errors(s: &Schema, fp: &str, path: &str, errs: &mut Vec<FieldError>) {
    let bad = |m: String| FieldError::invalid(path, BadValue::Str(fp.into()), m);
    if !fp.is_empty() && fp.trim().is_empty() {
        errs.push(bad("fieldPath must be non-empty if specified".into()));
    }
    if fp.contains('\n') || fp.contains('\r') {
        errs.push(bad("fieldPath must not contain line breaks".into()));
    }
    if !fp.is_empty() {
        if let Err(e) = super::field_path::valid_field_path(fp, s) {
            errs.push(bad(format!("fieldPath must be a valid path: {e}")));
        }
    }
}

/// A CEL syntax error of a rule (`L:C: Syntax error: ...`), as the API server's CEL
/// compiler rejects the rule when the ClusterClass is validated. Only what is surely a
/// syntax error (an unbalanced bracket, an operator without operand, a bad token) is
/// reported, and cel-go's own nesting limits ([`cel::depth`]); what our parser merely
/// does not support (or its nesting limit, lower than CEL's) stays a warning when the
/// rule is evaluated.
fn rule_syntax_error(rule: &str) -> Option<String> {
    if rule.trim().is_empty() {
        return None;
    }
    // CEL syntax our parser does not know: optional fields/indexes, bytes literals.
    let unsupported = ["?.", ".?", "[?", "{?", "b\"", "b'", "B\"", "B'"];
    if unsupported.iter().any(|u| rule.contains(u)) {
        return None;
    }
    // cel-go's nesting limits (no location: `-1:0`).
    if let Some(e) = cel::depth::check(rule) {
        return Some(format!("-1:0: {e}"));
    }
    let cel::parser::ParseError::Syntax(e) = cel::parser::parse(rule).err()? else {
        return None;
    };
    // Position: the end of the rule's first line, where a missing operand shows.
    let first = rule.lines().next().unwrap_or("");
    Some(format!("1:{}: {e}", first.chars().count() + 1))
}

/// The compilation error of a rule's `messageExpression` (its syntax, then its types).
fn message_expression_error(
    r: &super::schema::ValidationRule,
    decl: Option<&cel::decl::Decl>,
) -> Option<String> {
    if r.message_expression.trim().is_empty() {
        return None;
    }
    if let Some(err) = rule_syntax_error(&r.message_expression) {
        return Some(format!(
            "messageExpression compilation failed: ERROR: <input>:{err}"
        ));
    }
    cel::check::message_expression_error(&r.message_expression, decl?)
}

/// An `apiextensions.ValidationRule` as a bad value: Go's `%#v` (pointers that are set
/// print as an address in Go; here as `(0x1)`, a placeholder) and its `json.Marshal` (the
/// internal type has no JSON tags: Go's field names).
fn go_validation_rule(r: &super::schema::ValidationRule) -> BadValue {
    let reason = if r.reason.is_empty() { "nil" } else { "0x1" };
    let go_syntax = format!(
        "apiextensions.ValidationRule{{Rule:{}, Message:{}, MessageExpression:{}, Reason:(*apiextensions.FieldValueErrorReason)({reason}), FieldPath:{}, OptionalOldSelf:(*bool)(nil)}}",
        go_quote(&r.rule),
        go_quote(&r.message),
        go_quote(&r.message_expression),
        go_quote(&r.field_path)
    );
    let js = |s: &str| crate::go::json::marshal(&Value::from(s));
    let json_reason = if r.reason.is_empty() {
        "null".to_string()
    } else {
        js(&r.reason)
    };
    let json = format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{json_reason},\"FieldPath\":{},\"OptionalOldSelf\":null}}",
        js(&r.rule),
        js(&r.message),
        js(&r.message_expression),
        js(&r.field_path)
    );
    BadValue::Versioned {
        before_v033: Box::new(BadValue::GoSyntax(go_syntax)),
        since_v033: Box::new(BadValue::Json(json)),
    }
}

/// CEL type information cannot be built for a root `array` schema (apiserver's
/// `SchemaDeclType` with the resource-root metadata added), so rules there are rejected.
fn root_cel_error(s: &Schema, path: &str) -> Option<FieldError> {
    (s.type_ == "array" && !s.int_or_string).then(|| {
        FieldError::internal(
            &child(path, "x-kubernetes-validations"),
            "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
        )
    })
}

/// The ClusterClass webhook's variable checks, wrapped as clusterctl's plan reports a
/// webhook failure: `failed validation of cluster.x-k8s.io/v1beta1, Kind=ClusterClass
/// ns/name: ClusterClass.cluster.x-k8s.io "name" is invalid: [...]`. The topology engine
/// may instead merge `variable_definition_errors` into its own ClusterClass error list.
pub fn validate_cluster_class_variables(cluster_class: &Value) -> Result<()> {
    let errs = variable_definition_errors(cluster_class);
    if errs.is_empty() {
        return Ok(());
    }
    let md = |k: &str| {
        cluster_class
            .ptr(&format!("/metadata/{k}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let api_version = cluster_class
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("cluster.x-k8s.io/v1beta1");
    Err(Error::new(invalid_object_message(
        "ClusterClass.cluster.x-k8s.io",
        md("name"),
        &errs,
    ))
    .wrap(format!(
        "failed validation of {api_version}, Kind=ClusterClass {}/{}",
        md("namespace"),
        md("name")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(cc: Value) -> Vec<String> {
        variable_definition_errors(&cc)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn webhook_message() {
        let cc = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "metadata": {"name": "cc", "namespace": "ns"}, "spec": {"variables": [{"name": "builtin"}]}});
        assert_eq!(
            validate_cluster_class_variables(&cc).unwrap_err().message(),
            "failed validation of cluster.x-k8s.io/v1beta1, Kind=ClusterClass ns/cc: ClusterClass.cluster.x-k8s.io \"cc\" is invalid: [spec.variables[builtin].name: Invalid value: \"builtin\": \"builtin\" is a reserved variable name, spec.variables[builtin].schema.openAPIV3Schema.type: Required value: must not be empty for specified object fields]"
        );
        let ok = json!({"metadata": {"name": "cc"}, "spec": {"variables": [{"name": "a", "schema": {"openAPIV3Schema": {"type": "string"}}}]}});
        assert!(validate_cluster_class_variables(&ok).is_ok());
    }

    #[test]
    fn names() {
        let t = texts(
            json!({"spec": {"variables": [{"name": "a", "schema": {"openAPIV3Schema": {"type": "string"}}}, {"name": "a", "schema": {"openAPIV3Schema": {"type": "string"}}}, {"name": "builtin", "schema": {"openAPIV3Schema": {"type": "string"}}}, {"name": "x.y", "schema": {"openAPIV3Schema": {"type": "string"}}}]}}),
        );
        assert_eq!(t, vec![
            "spec.variables[a].name: Invalid value: \"a\": variable name must be unique. Variable with name \"a\" is defined more than once",
            "spec.variables[builtin].name: Invalid value: \"builtin\": \"builtin\" is a reserved variable name",
            "spec.variables[x.y].name: Invalid value: \"x.y\": variable name cannot contain \".\"",
        ]);
    }

    #[test]
    fn schema_rules() {
        let t = texts(json!({"spec": {"variables": [
            {"name": "t", "schema": {"openAPIV3Schema": {"type": "map"}}},
            {"name": "o", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}}},
            {"name": "r", "schema": {"openAPIV3Schema": {"type": "string", "x-kubernetes-validations": [{"rule": " "}, {"rule": "true", "reason": "Bad"}]}}}
        ]}}));
        assert_eq!(t, vec![
            "spec.variables[t].schema.openAPIV3Schema.type: Unsupported value: \"map\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
            "spec.variables[o].schema.openAPIV3Schema: Forbidden: additionalProperties and properties are mutually exclusive",
            "spec.variables[r].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified",
            "spec.variables[r].schema.openAPIV3Schema.x-kubernetes-validations[1].reason: Unsupported value: \"Bad\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
        ]);
    }

    #[test]
    fn cel_syntax_errors_reject_the_class() {
        let cc = |rule: &str| {
            json!({"metadata": {"name": "cc"}, "spec": {"variables": [
                {"name": "r", "schema": {"openAPIV3Schema": {"type": "string", "x-kubernetes-validations": [{"rule": rule}]}}}
            ]}})
        };
        assert_eq!(
            texts(cc("self.size() >")),
            ["spec.variables[r].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"self.size() >\", Message:\"\", MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:14: Syntax error: unexpected end of expression"]
        );
        for bad in ["self.size( > 1", "self == 'a", "self #"] {
            assert_eq!(texts(cc(bad)).len(), 1, "{bad}");
        }
        for ok in [
            "self.size() > 1",
            "self.?x.orValue('') == ''",
            "self.startsWith('a') ? true : false",
        ] {
            assert!(texts(cc(ok)).is_empty(), "{ok}");
        }
    }

    #[test]
    fn structural_then_defaults_then_schema() {
        let t = texts(json!({"spec": {"variables": [
            {"name": "s", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"maxLength": 1}}, "example": 5}}},
            {"name": "d", "schema": {"openAPIV3Schema": {"type": "object", "default": {"z": 1}, "properties": {"a": {"type": "string", "maxLength": 1, "default": "ab"}}}}}
        ]}}));
        assert_eq!(t, vec![
            "spec.variables[s].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
            "spec.variables[d].schema.openAPIV3Schema.default: Invalid value: map[string]interface {}{\"z\":1}: must not have unknown fields",
            "spec.variables[d].schema.openAPIV3Schema.properties[a].default: Too long: may not be more than 1 bytes",
        ]);
    }

    #[test]
    fn examples_and_enums_must_validate() {
        let t = texts(
            json!({"spec": {"variables": [{"name": "e", "schema": {"openAPIV3Schema": {"type": "integer", "maximum": 3, "example": 5, "enum": [1, 9]}}}]}}),
        );
        assert_eq!(t, vec![
            "spec.variables[e].schema.openAPIV3Schema.example: Invalid value: 5:  in body should be less than or equal to 3",
            "spec.variables[e].schema.openAPIV3Schema.example: Unsupported value: 5: supported values: \"1\", \"9\"",
            "spec.variables[e].schema.openAPIV3Schema.enum[1]: Invalid value: 9:  in body should be less than or equal to 3",
        ]);
        assert!(texts(json!({"spec": {"variables": [{"name": "ok", "schema": {"openAPIV3Schema": {"type": "string", "example": "x"}}}]}})).is_empty());
        // A null enum value is nil in Go, which skips it (v1.10 and v1.14 alike).
        assert!(texts(json!({"spec": {"variables": [{"name": "n", "schema": {"openAPIV3Schema": {"type": "string", "enum": ["a", null],
            "x-kubernetes-validations": [{"rule": "self == 'a'"}]}}}]}})).is_empty());
    }

    #[test]
    fn v1beta2_metadata_path() {
        let cc = json!({"spec": {"variables": [{"name": "v", "metadata": {"labels": {"-a": "b"}},
            "deprecatedV1Beta1Metadata": {"labels": {"-c": "d"}}, "schema": {"openAPIV3Schema": {"type": "string"}}}]}});
        let fields = |errs: Vec<FieldError>| -> Vec<(String, BadValue)> {
            errs.into_iter().map(|e| (e.field, e.bad_value)).collect()
        };
        assert_eq!(
            fields(variable_definition_errors(&cc)),
            [(
                "spec.variables[v].metadata.labels".to_string(),
                BadValue::Str("-a".into())
            )]
        );
        assert_eq!(
            fields(variable_definition_errors_v1beta2(&cc)),
            [(
                "spec.variables[v].deprecatedV1Beta1Metadata.labels".to_string(),
                BadValue::Str("-c".into())
            )]
        );
    }

    #[test]
    fn field_paths_old_self_and_example_rules() {
        let var = |name: &str, schema: Value| json!({"name": name, "schema": {"openAPIV3Schema": schema}});
        let t = texts(json!({"spec": {"variables": [
            var("f", json!({"type": "object", "properties": {"a": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "true", "fieldPath": " "}, {"rule": "true", "fieldPath": ".b"}]})),
            var("o", json!({"type": "array", "items": {"type": "array", "items": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}})),
            var("e", json!({"type": "string", "example": "b", "enum": ["a", "b"],
                "x-kubernetes-validations": [{"rule": "self.startsWith('a')"}]})),
        ]}}));
        let p = "spec.variables";
        assert_eq!(t, vec![
            format!("{p}[f].schema.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: \" \": fieldPath must be non-empty if specified"),
            format!("{p}[f].schema.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: \" \": fieldPath must be a valid path: expected [ or . but got:  "),
            format!("{p}[f].schema.openAPIV3Schema.x-kubernetes-validations[1].fieldPath: Invalid value: \".b\": fieldPath must be a valid path: does not refer to a valid field"),
            // Checked with clusterctl v1.10.10: the unbounded lists also put the rule over
            // the cost budget (cardinality 1048576), before and after the oldSelf error.
            format!("{p}[o].schema.openAPIV3Schema.items.items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"),
            format!("{p}[o].schema.openAPIV3Schema.items.items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within {p}[o].schema.openAPIV3Schema.items"),
            format!("{p}[o].schema.openAPIV3Schema.items.items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema"),
            format!("{p}[o].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"),
            format!("{p}[e].schema.openAPIV3Schema.example: Invalid value: \"string\": failed rule: self.startsWith('a')"),
            format!("{p}[e].schema.openAPIV3Schema.enum[1]: Invalid value: \"string\": failed rule: self.startsWith('a')"),
        ]);
    }
}
