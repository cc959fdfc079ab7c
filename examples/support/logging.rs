//! Log output of the examples, one setup for all of them.
//!
//! `RUST_LOG` holds comma-separated `target=level` directives or a bare level
//! (`RUST_LOG=dyno_core=debug` prints one line per dyno operation, when its span closes;
//! `RUST_LOG=info,aws_smithy_runtime=warn`); unset, only errors are printed. It is read with
//! tracing-subscriber's `Targets` filter rather than `EnvFilter`, which would compile a regex
//! engine into every example for span-field directives the examples do not need. A value that
//! does not parse is reported on stderr and the default is kept.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Installs the formatting subscriber, writing to stderr, filtered by `RUST_LOG`.
pub fn init() {
    let default = || Targets::new().with_default(LevelFilter::ERROR);
    let filter = match std::env::var("RUST_LOG") {
        Ok(text) => text.parse::<Targets>().unwrap_or_else(|err| {
            eprintln!("RUST_LOG={text:?} ignored ({err}); printing errors only");
            default()
        }),
        Err(_) => default(),
    };
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_span_events(FmtSpan::CLOSE)
                .with_writer(std::io::stderr),
        )
        .with(filter)
        .init();
}
