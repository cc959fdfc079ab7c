//! The checks the examples make of what they print: `OK`/`FAIL` lines, and an error that stops
//! the example (and fails its test) when a check fails.

/// The error type the examples return.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Prints `OK   what` or `FAIL what`; a failed check is an error.
pub fn check(ok: bool, what: &str) -> Result<(), BoxError> {
    if ok {
        println!("OK   {what}");
        Ok(())
    } else {
        println!("FAIL {what}");
        Err(format!("check failed: {what}").into())
    }
}
