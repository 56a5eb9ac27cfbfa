/*!
`fwbench k8s-job`: the Kubernetes manifests for a load too large for one
machine. An Indexed Job of N pods, each running one
segment of the load (`fwbench load --segment-from-job-index N`, part
index + 1 of N), and, when the pods share a claim, a second Job that adds
their reports with `fwbench merge`. Nothing here talks to a cluster: the
command writes YAML for `kubectl apply`; docs/kubernetes.md is the
walk-through.

Layout (one concern per file):
- `args.rs`: the raw flags ([`K8sJobArgs`]);
- `plan.rs`: the validated [`JobPlan`]: names, resources, the load flags
  parsed as the pods will parse them;
- `manifest.rs`: the Jobs as JSON values, and why each field is set;
- `yaml.rs`: a JSON value written as block YAML.
*/

mod args;
mod manifest;
mod plan;
mod yaml;

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context};

pub use args::K8sJobArgs;
pub use manifest::{load_job, merge_job, report_path, RESULTS_DIR};
pub use plan::{check_dns_label, JobPlan, Results, MAX_NAME};
pub use yaml::document as yaml_document;

/// `fwbench k8s-job`: writes the load Job to `out`, or with `--merge` the
/// merge Job, or with `--out DIR` both files into DIR (and what to run next
/// to `out`).
pub fn run(args: &K8sJobArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let plan = JobPlan::from_args(args)?;
    let load = yaml::document(&load_comment(&plan), &load_job(&plan));
    let merge = merge_job(&plan).map(|job| yaml::document(&merge_comment(&plan), &job));
    let Some(dir) = &args.out else {
        let text = match (args.merge, merge) {
            (false, _) => load,
            (true, Some(merge)) => merge,
            (true, None) => bail!("--merge: there is no merge Job for this plan"),
        };
        return out
            .write_all(text.as_bytes())
            .context("cannot write the manifest");
    };
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create --out directory {}", dir.display()))?;
    let load_file = dir.join(format!("{}.yaml", plan.name));
    write_file(&load_file, &load)?;
    writeln!(
        out,
        "wrote {} (the load Job: {} pods)",
        load_file.display(),
        plan.pods
    )?;
    if let Some(merge) = merge {
        let merge_file = dir.join(format!("{}.yaml", plan.merge_name()));
        write_file(&merge_file, &merge)?;
        writeln!(
            out,
            "wrote {} (apply it once the load Job is complete)",
            merge_file.display()
        )?;
    }
    writeln!(
        out,
        "next: kubectl apply -f {}; docs/kubernetes.md has the rest",
        load_file.display()
    )?;
    Ok(())
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `-n NAMESPACE ` for the kubectl commands in the comments, if one is set.
fn namespace_flag(plan: &JobPlan) -> String {
    plan.namespace
        .as_ref()
        .map(|ns| format!("-n {ns} "))
        .unwrap_or_default()
}

fn load_comment(plan: &JobPlan) -> String {
    let ns = namespace_flag(plan);
    let name = &plan.name;
    let collect = match &plan.results {
        Results::Claim(claim) => format!(
            "Reports: {RESULTS_DIR}/segment-INDEX.json in directory {name}/ of claim {claim};\n\
             then apply {}.yaml to merge them.",
            plan.merge_name()
        ),
        Results::Logs => format!(
            "Reports: each pod prints its JSON report to its log; collect them with\n\
             kubectl {ns}logs and merge them with fwbench merge (docs/kubernetes.md)."
        ),
    };
    format!(
        "Written by fwbench k8s-job (fwbench {version}). The image must hold a fwbench\n\
         that knows load --segment-from-job-index (this version or later).\n\
         {pods} load pods, {cpus} whole CPU(s) and {memory} each (requests = limits: Guaranteed QoS),\n\
         all created at once; pod INDEX (0-based) runs segment INDEX+1 of {pods}.\n\
         Apply:  kubectl {ns}apply -f {name}.yaml\n\
         Wait:   kubectl {ns}wait --for=condition=complete job/{name} --timeout={deadline}s\n\
         {collect}",
        version = env!("CARGO_PKG_VERSION"),
        pods = plan.pods,
        cpus = plan.cpus,
        memory = plan.memory,
        deadline = plan.deadline.as_secs(),
    )
}

fn merge_comment(plan: &JobPlan) -> String {
    let ns = namespace_flag(plan);
    let merge = plan.merge_name();
    format!(
        "Written by fwbench k8s-job (fwbench {version}): merges the {pods} reports of job/{name}.\n\
         Apply only once that Job is complete, then read the summary:\n\
         kubectl {ns}apply -f {merge}.yaml\n\
         kubectl {ns}wait --for=condition=complete job/{merge} --timeout=600s\n\
         kubectl {ns}logs job/{merge}",
        version = env!("CARGO_PKG_VERSION"),
        pods = plan.pods,
        name = plan.name,
    )
}
