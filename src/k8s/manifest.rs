/*!
The manifests of `fwbench k8s-job`, as JSON values (yaml.rs writes them):
the load Job, an Indexed Job of N pods each running one segment of the
load, and the merge Job, which adds the pods' reports into one.

Choices, and why (docs/kubernetes.md tells the user the same):
- `completionMode: Indexed` with completions = parallelism = N: the Job
  controller creates all N pods at once, each with its index in
  `JOB_COMPLETION_INDEX` (0-based), so they start together when the cluster
  has room for all of them; `load --segment-from-job-index N` turns the
  index into segment index + 1 of N, with no shell in the image.
- `backoffLimitPerIndex: 0`: a failed pod is not run again (a rerun would
  measure a different moment, which merge refuses), and one failed pod does
  not stop the others (plain `backoffLimit: 0` fails the Job and kills the
  pods still running).
- CPU and memory requests equal to their limits, CPUs whole: Guaranteed
  QoS, which the kubelet's static CPU manager answers with exclusive cores.
- Reports on a shared claim under `/results` (`subPath` NAME, created by
  the kubelet), or in the pods' logs when there is no claim.
- Restricted Pod Security: non-root (uid 65532), no privilege escalation,
  no capabilities, the runtime's seccomp profile, no service account token.
*/

use serde_json::{json, Value};

use super::plan::{JobPlan, Results};
use crate::load::JOB_INDEX_VAR;

/// Where the claim is mounted in the pods.
pub const RESULTS_DIR: &str = "/results";

/// The user the pods run as (distroless' `nonroot`; any non-zero uid does).
const RUN_AS: u32 = 65532;

/// The load Job.
pub fn load_job(plan: &JobPlan) -> Value {
    let mut args = vec!["load".to_owned(), escape(&plan.url)];
    args.extend(plan.load_flags.iter().map(|flag| escape(flag)));
    args.extend(["--segment-from-job-index".to_owned(), plan.pods.to_string()]);
    args.push(match plan.results {
        // Kubernetes expands $(VAR) in args from the container's variables:
        // each pod writes its own file.
        Results::Claim(_) => format!("--json={}", report_path(&format!("$({JOB_INDEX_VAR})"))),
        Results::Logs => "--json".to_owned(),
    });
    let container = container(plan, "load", args);
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(plan, &plan.name, "load"),
        "spec": {
            "completionMode": "Indexed",
            "completions": plan.pods,
            "parallelism": plan.pods,
            "backoffLimitPerIndex": 0,
            "activeDeadlineSeconds": plan.deadline.as_secs(),
            "template": pod_template(plan, "load", container),
        },
    })
}

/// The merge Job, when the reports are on a claim and there are several:
/// `fwbench merge` over every pod's report, the merged report written
/// beside them and its summary printed to the Job's log.
pub fn merge_job(plan: &JobPlan) -> Option<Value> {
    if plan.results == Results::Logs || plan.pods < 2 {
        return None;
    }
    let mut args = vec!["merge".to_owned()];
    args.extend((0..plan.pods).map(|index| report_path(&index.to_string())));
    args.push(format!("--json={RESULTS_DIR}/merged.json"));
    let container = container(plan, "merge", args);
    let name = plan.merge_name();
    Some(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(plan, &name, "merge"),
        "spec": {
            "completions": 1,
            "parallelism": 1,
            "backoffLimit": 0,
            "activeDeadlineSeconds": 600,
            "template": pod_template(plan, "merge", container),
        },
    }))
}

/// The report file of the pod with this index (a number, or the variable
/// that holds it).
pub fn report_path(index: &str) -> String {
    format!("{RESULTS_DIR}/segment-{index}.json")
}

/// Kubernetes expands `$(VAR)` in a container's args and reads `$$` as a
/// literal `$`: the user's text gets every `$` doubled, so it reaches
/// fwbench exactly as typed.
fn escape(text: &str) -> String {
    text.replace('$', "$$")
}

fn labels(plan: &JobPlan, component: &str) -> Value {
    json!({
        "app.kubernetes.io/name": "fwbench",
        "app.kubernetes.io/instance": plan.name,
        "app.kubernetes.io/component": component,
    })
}

fn metadata(plan: &JobPlan, name: &str, component: &str) -> Value {
    let mut metadata = json!({ "name": name, "labels": labels(plan, component) });
    if let Some(namespace) = &plan.namespace {
        metadata["namespace"] = json!(namespace);
    }
    metadata
}

fn container(plan: &JobPlan, name: &str, args: Vec<String>) -> Value {
    // Quantities as strings: "2" and "1Gi" alike, as kubectl prints them.
    let resources = json!({ "cpu": plan.cpus.to_string(), "memory": plan.memory });
    let mut container = json!({
        "name": name,
        "image": plan.image,
        "command": ["fwbench"],
        "args": args,
        "resources": { "requests": resources, "limits": resources },
        "securityContext": {
            "allowPrivilegeEscalation": false,
            "capabilities": { "drop": ["ALL"] },
            "readOnlyRootFilesystem": true,
        },
    });
    if let Results::Claim(_) = plan.results {
        container["volumeMounts"] = json!([{
            "name": "results",
            "mountPath": RESULTS_DIR,
            // One directory per Job on a shared claim; the kubelet makes it.
            "subPath": plan.name,
        }]);
    }
    container
}

fn pod_template(plan: &JobPlan, component: &str, container: Value) -> Value {
    let mut spec = json!({
        "restartPolicy": "Never",
        "enableServiceLinks": false,
        "automountServiceAccountToken": false,
        "securityContext": {
            "runAsNonRoot": true,
            "runAsUser": RUN_AS,
            "runAsGroup": RUN_AS,
            "fsGroup": RUN_AS,
            "seccompProfile": { "type": "RuntimeDefault" },
        },
        "containers": [container],
    });
    if let Results::Claim(claim) = &plan.results {
        spec["volumes"] = json!([{ "name": "results", "persistentVolumeClaim": { "claimName": claim } }]);
    }
    json!({ "metadata": { "labels": labels(plan, component) }, "spec": spec })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::K8sJobArgs;
    use clap::Parser;

    fn plan(extra: &[&str]) -> JobPlan {
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: K8sJobArgs,
        }
        let mut argv = vec![
            "k8s-job",
            "http://web.bench.svc:8080/hello",
            "--image",
            "reg.example/fwbench:1",
        ];
        argv.extend_from_slice(extra);
        JobPlan::from_args(&Cli::try_parse_from(argv).unwrap().args).unwrap()
    }

    fn args(job: &Value) -> Vec<&str> {
        let args = job["spec"]["template"]["spec"]["containers"][0]["args"]
            .as_array()
            .unwrap();
        args.iter().map(|a| a.as_str().unwrap()).collect()
    }

    #[test]
    fn the_load_job_runs_one_segment_per_index_on_whole_guaranteed_cpus() {
        let job = load_job(&plan(&[
            "--pods", "8", "--cpus", "2", "--memory", "2Gi", "--", "-c", "400",
        ]));
        let spec = &job["spec"];
        assert_eq!(spec["completionMode"], "Indexed");
        assert_eq!(
            (spec["completions"].as_u64(), spec["parallelism"].as_u64()),
            (Some(8), Some(8))
        );
        assert_eq!(spec["backoffLimitPerIndex"], 0);
        let container = &spec["template"]["spec"]["containers"][0];
        assert_eq!(
            container["resources"]["requests"],
            json!({ "cpu": "2", "memory": "2Gi" })
        );
        assert_eq!(
            container["resources"]["limits"],
            container["resources"]["requests"]
        );
        assert_eq!(
            args(&job),
            [
                "load",
                "http://web.bench.svc:8080/hello",
                "-c",
                "400",
                "-t",
                "2",
                "--allow-host",
                "web.bench.svc",
                "--no-progress",
                "--segment-from-job-index",
                "8",
                "--json"
            ]
        );
        assert!(job["metadata"].get("namespace").is_none());
        assert!(spec["template"]["spec"].get("volumes").is_none());
        assert!(
            merge_job(&plan(&["--pods", "8", "--", "-c", "400"])).is_none(),
            "no claim, no merge Job"
        );
    }

    #[test]
    fn with_a_claim_each_pod_writes_its_report_and_the_merge_job_reads_them_all() {
        let plan = plan(&[
            "--pods",
            "3",
            "--pvc",
            "shared",
            "--namespace",
            "bench",
            "--name",
            "run1",
        ]);
        let job = load_job(&plan);
        assert_eq!(
            args(&job).last(),
            Some(&"--json=/results/segment-$(JOB_COMPLETION_INDEX).json")
        );
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "shared");
        assert_eq!(pod["containers"][0]["volumeMounts"][0]["subPath"], "run1");
        assert_eq!(job["metadata"]["namespace"], "bench");

        let merge = merge_job(&plan).expect("a merge Job");
        assert_eq!(merge["metadata"]["name"], "run1-merge");
        assert_eq!(
            args(&merge),
            [
                "merge",
                "/results/segment-0.json",
                "/results/segment-1.json",
                "/results/segment-2.json",
                "--json=/results/merged.json"
            ]
        );
        assert_eq!(
            merge["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["subPath"],
            "run1"
        );
    }

    #[test]
    fn dollars_in_the_users_flags_reach_fwbench_as_typed() {
        let job = load_job(&plan(&["--pods", "2", "--", "--body", "$(HOME) costs $5"]));
        assert!(args(&job).contains(&"$$(HOME) costs $$5"), "{:?}", args(&job));
    }
}
