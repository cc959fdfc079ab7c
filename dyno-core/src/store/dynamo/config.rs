//! How a [`DynamoStore`] is configured: endpoint, region, credentials, timeouts and retries, with
//! defaults that bound every call in time.

use std::cell::Cell;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
    FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Credentials, Intercept, Region, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use super::DynamoStore;
pub use crate::timeouts::Timeouts;

/// Builds a [`DynamoStore`]: what is not set comes from the standard AWS environment (region,
/// credentials, `AWS_ENDPOINT_URL_DYNAMODB`), and the [`Timeouts`] and retries have bounded
/// defaults.
///
/// ```no_run
/// # async fn demo() {
/// use std::time::Duration;
/// use dyno_core::DynamoStore;
///
/// let store = DynamoStore::builder()
///     .region("eu-west-1")
///     .operation_timeout(Duration::from_secs(5))
///     .max_attempts(2)
///     .build()
///     .await;
/// # let _ = store; }
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct DynamoStoreBuilder {
    endpoint: Option<String>,
    region: Option<String>,
    credentials: Option<Credentials>,
    timeouts: Timeouts,
    max_attempts: u32,
}

impl Default for DynamoStoreBuilder {
    fn default() -> Self {
        DynamoStoreBuilder {
            endpoint: None,
            region: None,
            credentials: None,
            timeouts: Timeouts::default(),
            max_attempts: 3,
        }
    }
}

impl DynamoStoreBuilder {
    /// The endpoint URL (`http://127.0.0.1:8000` for a local server), instead of the environment's.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// The region, instead of the environment's.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Fixed credentials, instead of the environment's credential chain.
    pub fn static_credentials(
        mut self,
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
    ) -> Self {
        self.credentials = Some(Credentials::new(
            access_key_id,
            secret_access_key,
            None,
            None,
            "dyno-static",
        ));
        self
    }

    /// All three time limits.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The connection limit ([`Timeouts::connect`]).
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.timeouts.connect = limit;
        self
    }

    /// The per-attempt limit ([`Timeouts::attempt`]).
    pub fn attempt_timeout(mut self, limit: Duration) -> Self {
        self.timeouts.attempt = limit;
        self
    }

    /// The whole-call limit ([`Timeouts::operation`]).
    pub fn operation_timeout(mut self, limit: Duration) -> Self {
        self.timeouts.operation = limit;
        self
    }

    /// Attempts per call, the first included (the SDK's standard retry mode: throttling, 5xx and
    /// transient transport errors, with jittered backoff); at least 1, default 3.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The store. Loading the environment's configuration does not fail: a missing region or
    /// missing credentials make each call fail with
    /// [`Error::Configuration`](crate::Error::Configuration), without sending anything.
    pub async fn build(self) -> DynamoStore {
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(self.timeouts.connect)
            .read_timeout(self.timeouts.attempt)
            .operation_attempt_timeout(self.timeouts.attempt)
            .operation_timeout(self.timeouts.operation)
            .build();
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .retry_config(RetryConfig::standard().with_max_attempts(self.max_attempts))
            .timeout_config(timeouts);
        if let Some(endpoint) = self.endpoint {
            loader = loader.endpoint_url(endpoint);
        }
        if let Some(region) = self.region {
            loader = loader.region(Region::new(region));
        }
        if let Some(credentials) = self.credentials {
            loader = loader.credentials_provider(credentials);
        }
        let config = loader.load().await;
        DynamoStore::new(aws_sdk_dynamodb::Client::new(&config))
    }
}

/// The error every call of a store with a zero time limit fails with, before anything is sent
/// (see [`Timeouts`]): named so that the error mapping can say which limit.
#[derive(Debug)]
pub(crate) struct ZeroTimeout(pub(crate) &'static str);

impl std::fmt::Display for ZeroTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} is zero, and a call given no time cannot finish (zero means no time \
             everywhere in dyno), so none is sent. Set a positive limit (the defaults are 3 s to \
             connect, 10 s per attempt, 30 s per call)",
            self.0
        )
    }
}

impl std::error::Error for ZeroTimeout {}

/// Fails every call before it is built, when the client has a zero time limit.
#[derive(Debug)]
pub(crate) struct RefuseZeroTimeout(&'static str);

impl Intercept for RefuseZeroTimeout {
    fn name(&self) -> &'static str {
        "dyno::RefuseZeroTimeout"
    }

    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Err(Box::new(ZeroTimeout(self.0)))
    }
}

/// The interceptor refusing every call of a client whose configuration has a zero time limit.
pub(crate) fn zero_timeout(config: &aws_sdk_dynamodb::Config) -> Option<RefuseZeroTimeout> {
    let t = config.timeout_config()?;
    let zero = |d: Option<Duration>| d.is_some_and(|d| d.is_zero());
    let which = if zero(t.connect_timeout()) {
        "connect timeout"
    } else if zero(t.operation_attempt_timeout()) || zero(t.read_timeout()) {
        "attempt timeout"
    } else if zero(t.operation_timeout()) {
        "operation timeout"
    } else {
        return None;
    };
    Some(RefuseZeroTimeout(which))
}

tokio::task_local! {
    /// What the current call's attempts did on the wire.
    static WIRE: Cell<Wire>;
}

/// What a call's attempts did on the wire, as seen by [`TransmissionMarker`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Wire {
    /// Some attempt was handed to the HTTP client.
    pub(crate) sent: bool,
    /// Attempts sent that got no response or a 5xx one: each may have been applied.
    pub(crate) unknown_attempts: u32,
    /// The current attempt was handed to the HTTP client.
    pub(crate) in_flight: bool,
}

/// Records, for the call running in [`track_transmission`], which attempts reached the HTTP
/// client and how they ended. Without it, "nothing was sent" (credentials, region, endpoint) and
/// "sent, no answer" look alike in the SDK's errors, and so do "the condition failed" and "the
/// condition failed on a retry, because the lost first attempt had applied the write".
#[derive(Debug)]
pub(crate) struct TransmissionMarker;

impl Intercept for TransmissionMarker {
    fn name(&self) -> &'static str {
        "dyno::TransmissionMarker"
    }

    fn read_before_transmit(
        &self,
        _context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        // Outside `track_transmission` (a caller using the client directly) there is nothing to mark.
        let _ = WIRE.try_with(|w| {
            w.set(Wire {
                sent: true,
                in_flight: true,
                ..w.get()
            });
        });
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let unknown = match context.response() {
            None => true,
            Some(response) => response.status().is_server_error(),
        };
        let _ = WIRE.try_with(|w| {
            let mut wire = w.get();
            // An attempt that failed before transmission left no doubt.
            if wire.in_flight && unknown {
                wire.unknown_attempts += 1;
            }
            wire.in_flight = false;
            w.set(wire);
        });
        Ok(())
    }
}

/// Runs an SDK call and tells what its attempts did on the wire.
pub(crate) async fn track_transmission<T>(call: impl std::future::Future<Output = T>) -> (T, Wire) {
    WIRE.scope(Cell::new(Wire::default()), async {
        let out = call.await;
        (out, WIRE.with(Cell::get))
    })
    .await
}
