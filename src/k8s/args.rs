/*!
The raw flags of `fwbench k8s-job`, as clap yields them. Nothing here checks
values or how they combine: [`JobPlan::from_args`](super::JobPlan::from_args)
does, in one place.
*/

use std::path::PathBuf;

/// `fwbench k8s-job URL --image IMAGE --pods N [options] -- [load flags]`
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Example: 8 pods of 2 whole CPUs each, together 400 connections for 30 s:

  fwbench k8s-job http://web.bench.svc.cluster.local:8080/hello \\
    --image registry.example.com/fwbench:0.1.0 --pods 8 --cpus 2 --pvc fwbench-results \\
    --out k8s/ -- -c 400 -d 30s --warmup 5s

docs/kubernetes.md walks through building the image, applying, collecting and merging.

Exit status: 0 the manifests are written; 2 a bad flag or value (the message says which and \
why), or a manifest that cannot be written.")]
pub struct K8sJobArgs {
    /// The load target as the pods reach it, usually a Service:
    /// http://NAME.NAMESPACE.svc.cluster.local:PORT/PATH. It is resolved in
    /// the pods, not here.
    pub url: String,

    /// The container image holding this fwbench binary (docs/kubernetes.md
    /// builds one), e.g. registry.example.com/fwbench:0.1.0. No default:
    /// fwbench does not guess your registry.
    #[arg(long, value_name = "IMAGE")]
    pub image: String,

    /// Load pods (segments), from 1 to 1000: each runs part K of N of the
    /// load given after `--`, so together they send exactly that load.
    #[arg(long, value_name = "N")]
    pub pods: u32,

    /// Whole CPUs per pod, requested and limited alike (Guaranteed QoS, so
    /// the kubelet's static CPU manager gives each pod cores of its own);
    /// each pod runs that many load threads unless -t is given.
    #[arg(long, default_value = "1", value_name = "CPUS")]
    pub cpus: String,

    /// Memory per pod, requested and limited alike, as a Kubernetes
    /// quantity: 512Mi, 1Gi, 2G.
    #[arg(long, default_value = "1Gi", value_name = "QUANTITY")]
    pub memory: String,

    /// The namespace of the Jobs (default: none written, so kubectl's
    /// current namespace).
    #[arg(long, short = 'n', value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// The load Job's name; the merge Job is NAME-merge, and its pods are
    /// NAME-INDEX-xxxxx.
    #[arg(long, default_value = "fwbench-load", value_name = "NAME")]
    pub name: String,

    /// A PersistentVolumeClaim the pods share (ReadWriteMany, unless every
    /// pod runs on one node): each pod writes its report to the claim's
    /// directory NAME/ and a second Job merges them there. Without it each
    /// pod prints its report to its log, and you merge on your machine.
    #[arg(long, value_name = "CLAIM")]
    pub pvc: Option<String>,

    /// Print the merge Job (apply it once the load Job is complete)
    /// instead of the load Job. Needs --pvc.
    #[arg(long, requires = "pvc", conflicts_with = "out")]
    pub merge: bool,

    /// Write the manifests into this directory (NAME.yaml, and with --pvc
    /// NAME-merge.yaml) instead of printing the load Job.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// The flags of `fwbench load` for the whole load (connections, -n and
    /// --rate are cut into the pods' shares), after `--`: e.g. -- -c 400 -d
    /// 30s. The pods get their segment, --allow-host (the target's host)
    /// and their report's destination from fwbench; -t defaults to --cpus.
    #[arg(last = true, value_name = "LOAD FLAGS")]
    pub load: Vec<String>,
}
