//! The findings written out: human text, JSON (`capi-render.io/v1alpha1`
//! `LintResult`) and SARIF 2.1.0 for CI annotations. Files are shown under `prefix`
//! (the folder given to `--provider`, empty for `-f`); ordering is the findings'.

use serde_json::{json, Value};

use super::{Finding, Severity, RULES};

pub fn shown(prefix: &str, file: &str) -> String {
    let p = prefix.trim_end_matches('/');
    if p.is_empty() || p == "." {
        file.to_string()
    } else if file == "." {
        p.to_string()
    } else {
        format!("{p}/{file}")
    }
}

/// (errors, warnings, notes)
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Note))
}

/// One finding a line (`file:line: severity[rule]: where: message`), its hint on the
/// next, and a summary line.
pub fn text(findings: &[Finding], prefix: &str) -> String {
    let mut out = String::new();
    for f in findings {
        let mut loc = shown(prefix, &f.file);
        if let Some(l) = f.line {
            loc.push_str(&format!(":{l}"));
        }
        let mut place = Vec::new();
        if let Some(d) = f.document {
            place.push(format!("document {d}"));
        }
        if !f.path.is_empty() {
            place.push(f.path.clone());
        }
        let place = if place.is_empty() {
            String::new()
        } else {
            format!(" ({})", place.join(", "))
        };
        out.push_str(&format!(
            "{loc}: {}[{}]{place}: {}\n",
            f.severity.as_str(),
            f.rule,
            f.message
        ));
        if let Some(h) = &f.hint {
            out.push_str(&format!("  hint: {h}\n"));
        }
    }
    let (e, w, n) = counts(findings);
    out.push_str(&format!("{e} error(s), {w} warning(s), {n} note(s)\n"));
    out
}

fn finding_json(f: &Finding, prefix: &str) -> Value {
    json!({
        "rule": f.rule,
        "severity": f.severity.as_str(),
        "file": shown(prefix, &f.file),
        "document": f.document,
        "line": f.line,
        "path": f.path,
        "message": f.message,
        "hint": f.hint,
    })
}

/// `{"apiVersion": "capi-render.io/v1alpha1", "kind": "LintResult", ...}`.
pub fn json(findings: &[Finding], prefix: &str) -> Value {
    let (e, w, n) = counts(findings);
    json!({
        "apiVersion": "capi-render.io/v1alpha1",
        "kind": "LintResult",
        "findings": findings.iter().map(|f| finding_json(f, prefix)).collect::<Vec<_>>(),
        "summary": {"errors": e, "warnings": w, "notes": n},
    })
}

/// A SARIF 2.1.0 log with one run: every rule in the driver, one result a finding.
pub fn sarif(findings: &[Finding], prefix: &str, tool_version: &str) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.meaning},
                "defaultConfiguration": {"level": r.severity.as_str()},
                "properties": {"source": r.source},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut physical = json!({"artifactLocation": {"uri": shown(prefix, &f.file)}});
            if let Some(l) = f.line {
                physical["region"] = json!({"startLine": l});
            }
            let mut text = f.message.clone();
            if let Some(h) = &f.hint {
                text.push_str(&format!(" (hint: {h})"));
            }
            json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == f.rule),
                "level": f.severity.as_str(),
                "message": {"text": text},
                "locations": [{"physicalLocation": physical}],
                "properties": {"document": f.document, "path": f.path},
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "capi-render",
                "version": tool_version,
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f() -> Finding {
        Finding {
            file: "a/b.yaml".into(),
            document: Some(2),
            line: Some(7),
            path: "spec.x".into(),
            rule: "crd-name",
            severity: Severity::Error,
            message: "bad".into(),
            hint: Some("fix".into()),
        }
    }

    #[test]
    fn formats() {
        let t = text(&[f()], "repo");
        assert_eq!(
            t,
            "repo/a/b.yaml:7: error[crd-name] (document 2, spec.x): bad\n  hint: fix\n1 error(s), 0 warning(s), 0 note(s)\n"
        );
        let s = sarif(&[f()], "", "0");
        assert_eq!(s["version"], "2.1.0");
        let r = &s["runs"][0]["results"][0];
        assert_eq!(r["ruleId"], "crd-name");
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "a/b.yaml"
        );
        assert_eq!(
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            7
        );
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            s["runs"][0]["tool"]["driver"]["rules"][idx]["id"],
            "crd-name"
        );
        assert_eq!(json(&[f()], "")["summary"]["errors"], 1);
    }
}
