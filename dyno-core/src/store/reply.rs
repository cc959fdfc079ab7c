//! [`Reply`]: what a [`Store`](super::Store) call returns.
//!
//! A store that answers at once (MemoryStore's engine takes no lock across an `.await`) gives
//! its answer as [`Reply::ready`], without allocating; a store that waits on the network gives
//! a boxed future ([`Reply::new`]). A wrapper that looks at the answer ([`Reply::inspect`],
//! [`Reply::map`]) keeps a ready answer ready, so that a wrapper over MemoryStore (metering, a
//! table-name prefix) adds no allocation to a call, and one over a server adds one box, as
//! `#[async_trait]` did.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

/// The answer of a [`Store`](super::Store) call: a future that is either ready already or boxed.
///
/// Await it like any future. A `Store` implementation builds it with [`Reply::ready`] (answered
/// at once) or [`Reply::new`] (an `async` block); a wrapper changes the answer with
/// [`Reply::map`] or looks at it with [`Reply::inspect`].
///
/// ```
/// # async fn demo() -> dyno_core::Result<()> {
/// use dyno_core::store::Reply;
///
/// let now: Reply<'_, u32> = Reply::ready(1);
/// let later = Reply::new(async { 2 });
/// assert_eq!(now.map(|n| n + 10).await, 11);
/// assert_eq!(later.await, 2);
/// # Ok(())
/// # }
/// ```
#[must_use = "a Reply does nothing unless awaited"]
pub struct Reply<'a, T>(State<'a, T>);

enum State<'a, T> {
    /// `None` once the answer has been taken.
    Ready(Option<T>),
    Pending(BoxFuture<'a, T>),
}

impl<'a, T> Reply<'a, T> {
    /// An answer known now: awaiting it returns `value` without allocating.
    #[inline]
    pub fn ready(value: T) -> Self {
        Reply(State::Ready(Some(value)))
    }

    /// An answer `future` gives: boxed, as `#[async_trait]` would box it.
    pub fn new(future: impl Future<Output = T> + Send + 'a) -> Self {
        Reply(State::Pending(Box::pin(future)))
    }

    /// The answer, if it is known without polling ([`Reply::ready`]); else the reply itself.
    #[inline]
    pub fn now(self) -> std::result::Result<T, Self> {
        match self.0 {
            State::Ready(Some(value)) => Ok(value),
            other => Err(Reply(other)),
        }
    }

    /// The answer, if it is known without polling ([`Reply::ready`]), left in the reply: a
    /// wrapper that only looks at it does not move it out and back.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        match &self.0 {
            State::Ready(value) => value.as_ref(),
            State::Pending(_) => None,
        }
    }

    /// This reply with its answer passed through `f`: at once when it is ready, else when the
    /// future completes (one more box).
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U + Send + 'a) -> Reply<'a, U>
    where
        T: Send + 'a,
    {
        match self.0 {
            State::Ready(Some(value)) => Reply::ready(f(value)),
            pending => Reply(pending).map_later(f),
        }
    }

    /// [`Reply::map`] of a pending reply: apart, so that the ready path stays small enough to
    /// inline.
    #[inline(never)]
    fn map_later<U>(self, f: impl FnOnce(T) -> U + Send + 'a) -> Reply<'a, U>
    where
        T: Send + 'a,
    {
        Reply::new(async move { f(self.await) })
    }

    /// This reply, with `f` shown its answer before the caller gets it: at once, in place, when
    /// it is ready.
    #[inline]
    pub fn inspect(self, f: impl FnOnce(&T) + Send + 'a) -> Self
    where
        T: Send + 'a,
    {
        if let Some(value) = self.peek() {
            f(value);
            return self;
        }
        self.map_later(|value| {
            f(&value);
            value
        })
    }

    /// The reply as a boxed future (a ready answer is boxed; a pending one is not boxed again).
    pub fn boxed(self) -> BoxFuture<'a, T>
    where
        T: Send + 'a,
    {
        match self.0 {
            State::Pending(future) => future,
            State::Ready(value) => Box::pin(std::future::ready(
                value.expect("a Reply's answer is taken once"),
            )),
        }
    }
}

#[cfg(test)]
impl<T> Reply<'_, T> {
    /// The size of the boxed future, for a pending reply.
    pub(crate) fn boxed_size(&self) -> Option<usize> {
        match &self.0 {
            State::Pending(future) => Some(std::mem::size_of_val(&**future)),
            State::Ready(_) => None,
        }
    }
}

impl<'a, T> From<BoxFuture<'a, T>> for Reply<'a, T> {
    /// A boxed future as a reply, without boxing it again (what an `#[async_trait]` method
    /// returns).
    fn from(future: BoxFuture<'a, T>) -> Self {
        Reply(State::Pending(future))
    }
}

// The answer is moved out, never pinned in place.
impl<T> Unpin for Reply<'_, T> {}

impl<T> Future for Reply<'_, T> {
    type Output = T;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.get_mut().0 {
            State::Ready(value) => {
                Poll::Ready(value.take().expect("a Reply polled after it answered"))
            }
            State::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T> std::fmt::Debug for Reply<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            State::Ready(Some(_)) => "Reply::Ready",
            State::Ready(None) => "Reply::Taken",
            State::Pending(_) => "Reply::Pending",
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_ready_answer_stays_ready_through_map_and_inspect() {
        let seen = AtomicUsize::new(0);
        let reply = Reply::ready(2)
            .map(|n| n * 10)
            .inspect(|n| seen.store(*n, Ordering::Relaxed));
        // Shown before it is awaited: nothing was boxed or deferred.
        assert_eq!(seen.load(Ordering::Relaxed), 20);
        assert_eq!(reply.now().unwrap(), 20);
    }

    /// `peek` shows a ready answer and leaves it in the reply; a pending one has none yet.
    #[tokio::test]
    async fn peek_shows_a_ready_answer_in_place() {
        let reply = Reply::ready(String::from("answer"));
        let shown = reply.peek().map(|s| s.as_ptr());
        // The answer the caller gets is the very one shown, not a copy.
        let answer = reply.await;
        assert_eq!(shown, Some(answer.as_ptr()));
        let pending = Reply::new(async { 1 });
        assert!(pending.peek().is_none());
        assert_eq!(pending.await, 1);
    }

    #[tokio::test]
    async fn a_pending_answer_is_seen_when_it_completes() {
        let seen = std::sync::Arc::new(AtomicUsize::new(0));
        let s = std::sync::Arc::clone(&seen);
        let reply = Reply::new(async {
            tokio::task::yield_now().await;
            3
        })
        .inspect(move |n| s.store(*n, Ordering::Relaxed));
        let reply = reply.now().unwrap_err();
        assert_eq!(seen.load(Ordering::Relaxed), 0);
        assert_eq!(reply.await, 3);
        assert_eq!(seen.load(Ordering::Relaxed), 3);
    }

    #[tokio::test]
    async fn boxed_and_back() {
        assert_eq!(Reply::ready(4).boxed().await, 4);
        assert_eq!(Reply::from(Reply::new(async { 5 }).boxed()).await, 5);
    }
}
