//! The server's CORS layer, minus the paths whose CORS belongs to someone else: `/functions/v1`,
//! where a function answers its own `OPTIONS` preflights and sets its own `Access-Control-*`
//! headers, as Supabase's edge-runtime lets it (nothing in front of a function adds, doubles or
//! overrides them).
//!
//! `Bypass` wraps another middleware (the server's `actix_cors::Cors`) and sends a request whose
//! path lies under one of its prefixes straight to the service below, around that middleware.
//! It decides nothing else and must not change what either route answers.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use actix_web::body::EitherBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};

/// The paths under which the function answers CORS itself.
pub const FUNCTION_PATHS: &[&str] = &["/functions/v1"];

/// `inner` (a middleware) for every request but those under `prefixes`.
pub struct Bypass<T> {
    inner: T,
    prefixes: &'static [&'static str],
}

/// The server's CORS layer for every surface but the functions'.
pub fn except_functions<T>(inner: T) -> Bypass<T> {
    Bypass { inner, prefixes: FUNCTION_PATHS }
}

/// Whether `path` is `prefix` or lies below it (`/functions/v1x` is not below `/functions/v1`).
fn below(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The service below, shared by the bypass and the wrapped middleware.
pub struct Shared<S>(Rc<S>);

impl<S, B> Service<ServiceRequest> for Shared<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
{
    type Response = ServiceResponse<B>;
    type Error = actix_web::Error;
    type Future = S::Future;

    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&self, req: ServiceRequest) -> Self::Future {
        self.0.call(req)
    }
}

impl<S, T, B, BT> Transform<S, ServiceRequest> for Bypass<T>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    T: Transform<Shared<S>, ServiceRequest, Response = ServiceResponse<EitherBody<B, BT>>, Error = actix_web::Error>,
    T::Future: 'static,
    T::Transform: 'static,
    B: 'static,
    BT: 'static,
{
    type Response = ServiceResponse<EitherBody<B, BT>>;
    type Error = actix_web::Error;
    type Transform = BypassMiddleware<S, T::Transform>;
    type InitError = T::InitError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Transform, Self::InitError>>>>;

    fn new_transform(&self, service: S) -> Self::Future {
        let below = Rc::new(service);
        let wrapped = self.inner.new_transform(Shared(below.clone()));
        let prefixes = self.prefixes;
        Box::pin(async move { Ok(BypassMiddleware { below, wrapped: wrapped.await?, prefixes }) })
    }
}

pub struct BypassMiddleware<S, W> {
    below: Rc<S>,
    wrapped: W,
    prefixes: &'static [&'static str],
}

impl<S, W, B, BT> Service<ServiceRequest> for BypassMiddleware<S, W>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    W: Service<ServiceRequest, Response = ServiceResponse<EitherBody<B, BT>>, Error = actix_web::Error>,
    W::Future: 'static,
    B: 'static,
    BT: 'static,
{
    type Response = ServiceResponse<EitherBody<B, BT>>;
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.wrapped.poll_ready(cx)
    }

    fn call(&self, req: ServiceRequest) -> Self::Future {
        if self.prefixes.iter().any(|prefix| below(req.path(), prefix)) {
            let answer = self.below.call(req);
            Box::pin(async move { answer.await.map(ServiceResponse::map_into_left_body) })
        } else {
            Box::pin(self.wrapped.call(req))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_prefix_and_paths_below_it_bypass() {
        assert!(below("/functions/v1", "/functions/v1"));
        assert!(below("/functions/v1/hello", "/functions/v1"));
        assert!(below("/functions/v1/hello/a/b", "/functions/v1"));
        assert!(!below("/functions/v1x", "/functions/v1"));
        assert!(!below("/rest/v1/functions/v1", "/functions/v1"));
        assert!(!below("/functions", "/functions/v1"));
    }
}
