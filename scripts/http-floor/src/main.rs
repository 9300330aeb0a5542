//! The floor of `make bench-rest`'s HTTP side: the server's own HTTP stack (actix-web with the
//! patched actix-http, mimalloc, as many workers as cores) answering every request with one
//! constant answer, the bytes and content type of a real `/rest/v1` answer, and doing nothing
//! else: no JWT, no routing, no SQL, no log. Its CPU per request is what any server built on
//! this stack spends per request on this machine before it does any work of its own.
//!
//! Usage: `bench-http-floor <port> <body file> [content type]`.

use actix_web::{web, App, HttpResponse, HttpServer};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = || std::io::Error::other("usage: bench-http-floor <port> <body file> [content type]");
    let port: u16 = args.next().and_then(|p| p.parse().ok()).ok_or_else(usage)?;
    let body = web::Bytes::from(std::fs::read(args.next().ok_or_else(usage)?)?);
    let content_type = args.next().unwrap_or_else(|| "application/json; charset=utf-8".into());
    actix_web::rt::System::new().block_on(async move {
        HttpServer::new(move || {
            let (body, content_type) = (body.clone(), content_type.clone());
            App::new().default_service(web::to(move || {
                let (body, content_type) = (body.clone(), content_type.clone());
                async move {
                    HttpResponse::Ok()
                        .insert_header(("content-type", content_type))
                        .insert_header(("content-range", "0-0/*"))
                        .body(body)
                }
            }))
        })
        .bind(("127.0.0.1", port))?
        .run()
        .await
    })
}
