//! The model report the examples print with `--report` (or `--report=<dir>`): the design
//! document (entity chart, access patterns), the capacity and cost per access pattern, the
//! hot-partition check of a stated workload, and a NoSQL Workbench file written to a directory
//! (`target/dyno-report/` by default), whose path it prints. See the guide,
//! `dyno_core::guide::model_report`, to run it on your own model.

use std::io::Write;
use std::path::{Path, PathBuf};

use dyno_core::cost::{Prices, Rates, Report};
use dyno_core::hot::Workload;
use dyno_core::model::Model;
use dyno_core::Store;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Where the report goes when the arguments ask for one: `--report` (the default directory,
/// `target/dyno-report/`) or `--report=<dir>`.
pub fn requested(args: impl IntoIterator<Item = String>) -> Option<PathBuf> {
    args.into_iter().find_map(|a| {
        if a == "--report" {
            Some(default_dir())
        } else {
            a.strip_prefix("--report=").map(PathBuf::from)
        }
    })
}

/// `target/dyno-report/` of the workspace (or of `CARGO_TARGET_DIR`).
pub fn default_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from);
    target.join("dyno-report")
}

/// What the run consumed, measured by the metering wrapper (`dyno_core::cost::Metered`), and
/// the request rates to price it at.
pub struct Capacity<'a> {
    /// The wrapper's report of the run.
    pub measured: &'a Report,
    /// Calls per second of the patterns to price, by their names in the report.
    pub rates: &'a Rates,
}

/// Prints the report of `model` to `out` and writes `<dir>/<table>.workbench.json` with up to
/// three sample items of each entity read from `store`. Returns the file's path.
pub async fn report(
    out: &mut dyn Write,
    model: &Model,
    store: &dyn Store,
    capacity: Option<Capacity<'_>>,
    workload: &Workload,
    dir: &Path,
) -> Result<PathBuf, BoxError> {
    writeln!(out, "\n{}", model.design_document())?;

    writeln!(out, "## Capacity and cost per access pattern\n")?;
    match capacity {
        Some(Capacity { measured, rates }) => {
            writeln!(
                out,
                "Consumed capacity of every call of the run above, measured by \
                 `dyno_core::cost::Metered` (units per call, items read versus returned, index \
                 write amplification):\n"
            )?;
            writeln!(out, "```text\n{measured}```\n")?;
            let prices = Prices::default();
            let cost = measured.cost(rates, &prices)?;
            writeln!(
                out,
                "Monthly cost at the stated rates, on demand and provisioned (us-east-1 prices \
                 of November 2024, `Prices::us_east_1`):\n"
            )?;
            writeln!(out, "```text\n{cost}```\n")?;
        }
        None => writeln!(out, "(not measured: the run was not metered)\n")?,
    }

    writeln!(out, "## Hot partitions\n")?;
    writeln!(
        out,
        "The workload below, replayed against DynamoDB's per-partition limits (3,000 read and \
         1,000 write units a second) in virtual time (`dyno_core::hot`):\n"
    )?;
    writeln!(out, "```text\n{}```\n", workload.simulate())?;

    let samples = model.sample_items(store, 3).await?;
    let workbench = model.to_workbench_json(&samples);
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.workbench.json", model.table.name));
    std::fs::write(&path, serde_json::to_string_pretty(&workbench)?)?;
    writeln!(
        out,
        "NoSQL Workbench data model ({} sample items): {}\n(import it in NoSQL Workbench: Data modeler, Import data model)",
        samples.len(),
        path.display()
    )?;
    Ok(path)
}
