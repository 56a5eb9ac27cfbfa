//! `fwbench k8s-job`: its manifests checked against Kubernetes' own schemas
//! (the JSON schemas of batch/v1 Job that PyPI's kubernetes-validate ships,
//! pinned in .ci/kubernetes-validate.txt and installed by .ci/setup.sh:
//! kubectl's client-side dry run cannot validate without a cluster), its
//! YAML read back by a YAML parser, and its pods' command run on this
//! machine, one process per Job index. No cluster is involved.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clap::Parser;
use fwbench::k8s::{self, JobPlan, K8sJobArgs};
use serde_json::Value;

use crate::support::fwbench;
use crate::support::servers::hello;

/// The Kubernetes versions the manifests are checked against: the oldest
/// the Jobs are documented for (`backoffLimitPerIndex` is on by default
/// from 1.29) and the newest the pinned schemas know.
const VERSIONS: [&str; 2] = ["1.29.0", "1.37.0"];

/// The venv .ci/setup.sh installs kubernetes-validate into.
fn venv() -> PathBuf {
    let dir = std::env::var_os("FWBENCH_K8S_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
                .join(".cache/fwbench/kubernetes-validate")
        });
    assert!(
        dir.join("bin/kubernetes-validate").exists(),
        "kubernetes-validate is not installed in {}: run .ci/setup.sh",
        dir.display()
    );
    dir
}

/// `kubernetes-validate --strict` (unknown fields are errors) for `version`.
fn validate(file: &Path, version: &str) -> Output {
    Command::new(venv().join("bin/kubernetes-validate"))
        .args(["--strict", "--kubernetes-version", version])
        .arg(file)
        .output()
        .expect("run kubernetes-validate")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fwbench-k8s-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn plan(argv: &[&str]) -> JobPlan {
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: K8sJobArgs,
    }
    let args = Cli::try_parse_from(std::iter::once("k8s-job").chain(argv.iter().copied()))
        .expect("flags parse")
        .args;
    JobPlan::from_args(&args).expect("a valid plan")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The load Job and the merge Job, with a claim and a namespace, and the
/// load Job without a claim: each passes the strict schema of each version.
#[test]
fn the_manifests_pass_the_kubernetes_job_schema() {
    let dir = temp_dir("schema");
    let common = [
        "k8s-job",
        "http://web.bench.svc.cluster.local:8080/hello",
        "--image",
        "registry.example.com/fwbench:0.1.0",
        "--pods",
        "8",
        "--cpus",
        "2",
        "--memory",
        "1Gi",
    ];
    let with_claim = dir.join("claim");
    let out = fwbench(common.iter().copied().chain([
        "--pvc",
        "fwbench-results",
        "--namespace",
        "bench",
        "--out",
        with_claim.to_str().unwrap(),
        "--",
        "-c",
        "400",
        "-d",
        "30s",
    ]));
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("fwbench-load-merge.yaml"), "{}", text(&out));
    let without_claim = fwbench(common.iter().copied().chain(["--", "-c", "400"]));
    assert!(without_claim.status.success(), "{}", text(&without_claim));
    std::fs::write(dir.join("logs.yaml"), &without_claim.stdout).unwrap();

    for file in [
        with_claim.join("fwbench-load.yaml"),
        with_claim.join("fwbench-load-merge.yaml"),
        dir.join("logs.yaml"),
    ] {
        for version in VERSIONS {
            let out = validate(&file, version);
            assert!(
                out.status.success(),
                "{} against {version}: {}",
                file.display(),
                text(&out)
            );
            assert!(text(&out).contains("passed"), "{}", text(&out));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The check can fail: a misspelt field and a number written as a word are
/// refused, naming what is wrong.
#[test]
fn the_schema_check_refuses_a_wrong_field_or_type() {
    let dir = temp_dir("negative");
    let out = fwbench([
        "k8s-job",
        "http://web:8080/",
        "--image",
        "fwbench:1",
        "--pods",
        "4",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let good = String::from_utf8(out.stdout).unwrap();
    for (from, to, named) in [
        (
            "completionMode: Indexed",
            "completionMod: Indexed",
            "completionMod",
        ),
        ("parallelism: 4", "parallelism: four", "four"),
        ("restartPolicy: Never", "restartPolicy: [Never]", "restartPolicy"),
    ] {
        assert!(good.contains(from), "{from} in:\n{good}");
        let file = dir.join("bad.yaml");
        std::fs::write(&file, good.replace(from, to)).unwrap();
        let out = validate(&file, VERSIONS[1]);
        assert!(!out.status.success(), "{to} passed:\n{}", text(&out));
        assert!(text(&out).contains(named), "{}", text(&out));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The YAML reads back (PyYAML, the validator's own parser) as exactly the
/// manifest's values, user text with quotes, colons, '#', '$' and non-ASCII
/// included.
#[test]
fn the_yaml_reads_back_as_the_manifest() {
    let dir = temp_dir("yaml");
    let plan = plan(&[
        "http://web.bench.svc:8080/a?b=c",
        "--image",
        "reg.example.com:5000/fwbench:1.0",
        "--pods",
        "3",
        "--pvc",
        "results",
        "--",
        "--body",
        "yes: #1 \"quoted\" $(HOME) 'single' é",
        "-H",
        "x-on: off",
        "--method",
        "POST",
    ]);
    for job in [k8s::load_job(&plan), k8s::merge_job(&plan).expect("a merge Job")] {
        let file = dir.join("job.yaml");
        std::fs::write(&file, k8s::yaml_document("a comment", &job)).unwrap();
        let out = Command::new(venv().join("bin/python"))
            .args([
                "-c",
                "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
            ])
            .arg(&file)
            .output()
            .expect("run python");
        assert!(out.status.success(), "{}", text(&out));
        let read: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(read, job);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// What each pod runs, run here: the load Job's command with the target
/// swapped for a local server, once per index as the Job controller would
/// set JOB_COMPLETION_INDEX, all at once; their reports merge into the
/// whole load, each segment once.
#[test]
fn the_pods_commands_run_as_segments_that_merge_into_the_whole_load() {
    let server = hello();
    let plan = plan(&[
        "http://web.bench.svc:8080/",
        "--image",
        "fwbench:1",
        "--pods",
        "3",
        "--",
        "-c",
        "7",
        "-d",
        "1s",
        "-t",
        "1",
    ]);
    let job = k8s::load_job(&plan);
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["command"][0], "fwbench");
    let mut args: Vec<String> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(args[1], "http://web.bench.svc:8080/");
    args[1] = server.url();

    let pods: Vec<_> = (0..3)
        .map(|index| {
            Command::new(env!("CARGO_BIN_EXE_fwbench"))
                .args(&args)
                .env("JOB_COMPLETION_INDEX", index.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start a pod's command")
        })
        .collect();
    let dir = temp_dir("pods");
    let mut files = Vec::new();
    for (index, pod) in pods.into_iter().enumerate() {
        let out = pod.wait_with_output().expect("wait");
        assert!(out.status.success(), "pod {index}: {}", text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).expect("the log is the JSON report");
        assert_eq!(report["segment"], serde_json::json!({ "k": index + 1, "n": 3 }));
        let file = dir.join(format!("segment-{index}.json"));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push(file.display().to_string());
    }
    let merged = fwbench(["merge", "--json"].iter().map(|s| s.to_string()).chain(files));
    assert!(merged.status.success(), "{}", text(&merged));
    let merged: Value = serde_json::from_slice(&merged.stdout).expect("merged JSON");
    assert_eq!(merged["connections"], 7);
    assert_eq!(
        merged["segments"],
        serde_json::json!([{ "k": 1, "n": 3 }, { "k": 2, "n": 3 }, { "k": 3, "n": 3 }])
    );
    assert!(merged["overlap_s"].as_f64().unwrap() > 0.5, "{merged:#}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Outside a Job the index is missing, and `load` says what to use instead.
#[test]
fn a_segment_from_a_job_index_needs_the_index() {
    let out = Command::new(env!("CARGO_BIN_EXE_fwbench"))
        .args(["load", "http://127.0.0.1:9/", "--segment-from-job-index", "3"])
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .expect("run fwbench");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("JOB_COMPLETION_INDEX is not set"),
        "{}",
        text(&out)
    );
}

/// Bad input is refused before anything is written, with the reason.
#[test]
fn k8s_job_refuses_bad_input_with_exit_2() {
    for (extra, needle) in [
        (&["--pods", "2", "--cpus", "1.5"][..], "whole number of CPUs"),
        (&["--pods", "1001"][..], "from 1 to 1000"),
        (&["--pods", "2", "--name", "Load"][..], "DNS-1123 label"),
        (&["--pods", "2", "--", "--json=x"][..], "leave --json out"),
        (&["--pods", "2", "--merge"][..], "--pvc"),
    ] {
        let out = fwbench(
            ["k8s-job", "http://web:80/", "--image", "fwbench:1"]
                .iter()
                .chain(extra),
        );
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out));
        assert!(text(&out).contains(needle), "{extra:?}: {}", text(&out));
        assert!(out.stdout.is_empty(), "{extra:?} wrote a manifest");
    }
}
