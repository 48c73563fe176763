//! The limit flags (global, any command): each overrides one of the library's
//! [`Limits`] for this process. Values are numbers, optionally with a binary suffix
//! (`64Mi`, `2Gi`, `500Ki`). They are hidden from every command's `--help` and
//! documented once, by the `limits` help topic ([`topic`]: `capi-render help limits`).

use capi_render::limits::{self, Limit, Limits};
use clap::Args;

fn amount(s: &str) -> Result<u64, String> {
    limits::parse_amount(s)
}

#[derive(Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// Bytes of one input file (-f files, repository files, --from, stdin) [default: 128Mi]
    #[arg(long = "max-file-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_file_bytes: Option<u64>,
    /// Bytes of all -f input files of a run [default: 512Mi]
    #[arg(long = "max-total-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_total_bytes: Option<u64>,
    /// YAML documents of all -f inputs of a run [default: 250000]
    #[arg(long = "max-documents", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_documents: Option<u64>,
    /// YAML nodes (after alias expansion) of a run [default: 40000000]
    #[arg(long = "max-yaml-nodes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_yaml_nodes: Option<u64>,
    /// YAML nodes added by aliases and merge keys in a run [default: 250000]
    #[arg(long = "max-yaml-alias-nodes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_yaml_alias_nodes: Option<u64>,
    /// Scalar bytes added by YAML aliases in a run [default: 32Mi]
    #[arg(long = "max-yaml-alias-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_yaml_alias_bytes: Option<u64>,
    /// Decompressed bytes of one ConfigMap's gzip binaryData [default: 32Mi]
    #[arg(long = "max-gzip-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_gzip_bytes: Option<u64>,
    /// Decompressed bytes of all ConfigMaps of a bundle (bundle verify) [default: 256Mi]
    #[arg(long = "max-bundle-gzip-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_bundle_gzip_bytes: Option<u64>,
    /// Bytes one Go template may print or build as one string [default: 16Mi]
    #[arg(long = "max-template-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_template_bytes: Option<u64>,
    /// Steps of one Go template execution [default: 1000000]
    #[arg(long = "max-template-steps", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_template_steps: Option<u64>,
    /// Compiled size of one regular expression [default: 10Mi]
    #[arg(long = "max-regex-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_regex_bytes: Option<u64>,
    /// Runtime cost of one CEL rule [default: 1000000]
    #[arg(long = "max-cel-cost", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_cel_cost: Option<u64>,
    /// Operations of one JSON patch [default: 10000]
    #[arg(long = "max-patch-ops", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_patch_ops: Option<u64>,
    /// Path segments of one JSON patch path [default: 128]
    #[arg(long = "max-patch-depth", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_patch_depth: Option<u64>,
    /// Bytes of the values one JSON patch adds, replaces, copies or moves, all its operations together [default: 16Mi]
    #[arg(long = "max-patch-bytes", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_patch_bytes: Option<u64>,
    /// Bytes the whole run may have in use; also caps the render threads at half of it over 4 × --max-template-bytes [default: 2Gi]
    #[arg(long = "max-memory", global = true, hide = true, value_name = "N", value_parser = amount)]
    pub max_memory: Option<u64>,
}

impl LimitArgs {
    /// The defaults with every given flag applied.
    pub fn limits(&self) -> Limits {
        let mut l = Limits::default();
        let given = [
            (Limit::FileBytes, self.max_file_bytes),
            (Limit::TotalBytes, self.max_total_bytes),
            (Limit::Documents, self.max_documents),
            (Limit::YamlNodes, self.max_yaml_nodes),
            (Limit::YamlAliasNodes, self.max_yaml_alias_nodes),
            (Limit::YamlAliasBytes, self.max_yaml_alias_bytes),
            (Limit::GzipBytes, self.max_gzip_bytes),
            (Limit::BundleGzipBytes, self.max_bundle_gzip_bytes),
            (Limit::TemplateBytes, self.max_template_bytes),
            (Limit::TemplateSteps, self.max_template_steps),
            (Limit::RegexBytes, self.max_regex_bytes),
            (Limit::CelCost, self.max_cel_cost),
            (Limit::PatchOps, self.max_patch_ops),
            (Limit::PatchDepth, self.max_patch_depth),
            (Limit::PatchBytes, self.max_patch_bytes),
            (Limit::Memory, self.max_memory),
        ];
        for (k, v) in given {
            if let Some(v) = v {
                l.set(k, v);
            }
        }
        l
    }

    /// Install the limits for this process (once, before any work).
    pub fn install(&self) {
        limits::install(self.limits());
    }
}

/// The `--max-*` flags of `cmd` (hidden from each command's help), with their help, as
/// the text of the `limits` topic.
pub fn topic(cmd: &clap::Command) -> String {
    let mut s = String::from(concat!(
        "Limits for untrusted inputs: global flags that every command accepts, before or after\n",
        "its name. Values are numbers, optionally with Ki, Mi or Gi. A breached limit is an\n",
        "error naming the input, the amount, the limit and the flag that raises it.\n\n",
    ));
    for a in cmd.get_arguments() {
        let Some(long) = a.get_long().filter(|l| l.starts_with("max-")) else {
            continue;
        };
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        s += &format!("  --{long} <N>\n          {help}\n");
    }
    s += concat!(
        "\nExamples:\n",
        "  capi-render render -f fleet.yaml -o out --max-documents 1000000 --max-total-bytes 2Gi\n",
        "  capi-render --max-file-bytes 16Mi lint components.yaml\n\n",
        "Exit codes:\n  0  success\n  1  error (a breached limit names the input and the flag)\n  2  usage error (unknown flag, missing argument)"
    );
    s
}

/// `cmd` with the `limits` topic's text as that subcommand's help.
pub fn with_topic(cmd: clap::Command) -> clap::Command {
    let text = topic(&cmd);
    cmd.mut_subcommand("limits", |c| c.after_help(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        l: LimitArgs,
    }

    #[test]
    fn every_limit_has_its_flag_and_the_defaults_match() {
        let cmd = T::command();
        for k in Limit::ALL {
            let long = k.flag().trim_start_matches("--");
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(long))
                .unwrap_or_else(|| panic!("no flag {long}"));
            // The help text states the library's default.
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            let shown = help
                .rsplit_once("[default: ")
                .and_then(|(_, d)| d.strip_suffix(']'))
                .unwrap_or_else(|| panic!("{long}: no default in {help:?}"));
            assert_eq!(
                limits::parse_amount(shown),
                Ok(Limits::default().get(k)),
                "{long}"
            );
        }
        // The topic lists every flag once, and no flag shows in the command's own help.
        let text = topic(&cmd);
        for k in Limit::ALL {
            assert_eq!(
                text.matches(&format!("{} <N>", k.flag())).count(),
                1,
                "{text}"
            );
        }
        let help = T::command().render_long_help().to_string();
        assert!(!help.contains("--max-"), "{help}");
        let t = T::parse_from(["t", "--max-file-bytes", "1Ki", "--max-documents", "7"]);
        let l = t.l.limits();
        assert_eq!(l.file_bytes, 1024);
        assert_eq!(l.documents, 7);
        assert_eq!(l.yaml_nodes, Limits::default().yaml_nodes);
    }
}
