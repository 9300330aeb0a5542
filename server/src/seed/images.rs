//! Illustrations of the seeded vehicles (no photo can be downloaded here): an SVG drawing per
//! vehicle in its body shape and colour, with its make and model, stored in the public
//! `vehicles` bucket.

use crate::db::cached::CachedQueries;
use std::sync::Arc;

use object_store::{ObjectStore, PutPayload};

use crate::storage::backend;
use crate::storage::db::object_metadata;
use crate::storage::md5_hash::Md5;

/// Where seeded images go: the object store and bucket of the storage surface.
pub struct ImageSink {
    pub store: Arc<dyn ObjectStore>,
    pub bucket: String,
}

impl ImageSink {
    /// Store `svg` as `file` unless an object of that name exists; true when stored. The bytes
    /// are written first and the row second, so a failure leaves no row without bytes.
    pub async fn put_if_missing(
        &self,
        client: &deadpool_postgres::Object,
        file: &str,
        svg: String,
    ) -> Result<bool, String> {
        let exists = client
            .cached_query_opt(
                "select 1 from storage.objects where bucket_id = $1 and name = $2",
                &[&self.bucket, &file],
            )
            .await
            .map_err(|e| e.to_string())?;
        if exists.is_some() {
            return Ok(false);
        }
        let version = uuid::Uuid::new_v4().to_string();
        let bytes = svg.into_bytes();
        let digest = Md5::digest(&bytes).ok_or("OpenSSL's MD5 failed")?;
        let etag = format!("\"{}\"", hex::encode(digest));
        let size = bytes.len() as u64;
        self.store.put(&backend::key_of(&version), PutPayload::from(bytes)).await.map_err(|e| e.to_string())?;
        let metadata = object_metadata(size, &etag, "image/svg+xml", "max-age=3600");
        client
            .cached_execute(
                "insert into storage.objects (bucket_id, name, metadata, version) values ($1, $2, $3, $4)",
                &[&self.bucket, &file, &metadata, &version],
            )
            .await
            .map_err(|e| e.to_string())?;
        Ok(true)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What a seeded vehicle is drawn from.
pub struct Drawn<'a> {
    pub name: &'a str,
    pub make: &'a str,
    pub model: &'a str,
    pub category: &'a str,
    /// The colour as the fleet lists it, in French (`Blanc`, `Gris anthracite`, ...).
    pub color: &'a str,
}

/// The body shape a vehicle is drawn with.
#[derive(Debug, PartialEq)]
enum Body {
    Sedan,
    Suv,
    Pickup,
    Van,
}

fn body_of(v: &Drawn) -> Body {
    let model = format!("{} {}", v.model, v.name).to_lowercase();
    if ["hiace", "minibus", "sprinter", "coaster"].iter().any(|m| model.contains(m)) {
        Body::Van
    } else if ["hilux", "l200", "pick-up", "pickup", "ranger", "navara"].iter().any(|m| model.contains(m)) {
        Body::Pickup
    } else if v.category == "suv"
        || ["lx", "range rover", "land cruiser", "patrol", "prado"].iter().any(|m| model.contains(m))
    {
        Body::Suv
    } else {
        Body::Sedan
    }
}

/// The paint of a French colour name (the first word that is known), grey when unknown.
fn paint_of(color: &str) -> &'static str {
    let c = color.to_lowercase();
    let words = [
        ("nacré", "#f1f5f9"),
        ("anthracite", "#374151"),
        ("nuit", "#1e3a8a"),
        ("blanc", "#f8fafc"),
        ("noir", "#111827"),
        ("argent", "#cbd5e1"),
        ("gris", "#6b7280"),
        ("rouge", "#b91c1c"),
        ("bleu", "#2563eb"),
        ("vert", "#15803d"),
        ("jaune", "#eab308"),
        ("orange", "#ea580c"),
        ("marron", "#78350f"),
        ("beige", "#d6c6a5"),
    ];
    words.iter().find(|(w, _)| c.contains(w)).map(|(_, hex)| *hex).unwrap_or("#94a3b8")
}

/// An SVG drawing of a vehicle: its body shape (saloon, SUV, pick-up, van), its colour, its make
/// and model, so the seeded fleet's pictures tell the cars apart.
pub fn vehicle_svg(v: &Drawn) -> String {
    let paint = paint_of(v.color);
    let label = match v.category {
        "luxury" => "Luxe",
        "suv" => "SUV",
        "utility" => "Utilitaire",
        _ => "Économique",
    };
    let shape = match body_of(v) {
        Body::Sedan => r##"<path d="M165 155 L235 102 L395 102 L465 155 Z" fill="{paint}" stroke="#0f172a" stroke-width="3"/>
<path d="M200 150 L245 112 L310 112 L310 150 Z M322 150 L322 112 L388 112 L430 150 Z" fill="#bfdbfe"/>
<rect x="85" y="150" width="470" height="85" rx="32" fill="{paint}" stroke="#0f172a" stroke-width="3"/>"##,
        Body::Suv => r##"<path d="M130 150 L180 82 L450 82 L490 150 Z" fill="{paint}" stroke="#0f172a" stroke-width="3"/>
<path d="M165 145 L195 94 L310 94 L310 145 Z M322 145 L322 94 L440 94 L470 145 Z" fill="#bfdbfe"/>
<rect x="85" y="140" width="470" height="100" rx="22" fill="{paint}" stroke="#0f172a" stroke-width="3"/>"##,
        Body::Pickup => r##"<path d="M330 150 L360 88 L470 88 L505 150 Z" fill="{paint}" stroke="#0f172a" stroke-width="3"/>
<path d="M352 145 L372 100 L460 100 L485 145 Z" fill="#bfdbfe"/>
<rect x="85" y="150" width="470" height="88" rx="18" fill="{paint}" stroke="#0f172a" stroke-width="3"/>
<rect x="95" y="122" width="225" height="30" fill="none" stroke="#0f172a" stroke-width="5"/>"##,
        Body::Van => r##"<rect x="95" y="72" width="450" height="168" rx="28" fill="{paint}" stroke="#0f172a" stroke-width="3"/>
<rect x="125" y="92" width="80" height="55" rx="8" fill="#bfdbfe"/><rect x="220" y="92" width="80" height="55" rx="8" fill="#bfdbfe"/>
<rect x="315" y="92" width="80" height="55" rx="8" fill="#bfdbfe"/><path d="M420 92 L500 92 L525 147 L420 147 Z" fill="#bfdbfe"/>"##,
    }
    .replace("{paint}", paint);
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 400" role="img" aria-label="{title}">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f8fafc"/><stop offset="1" stop-color="#dbeafe"/></linearGradient></defs>
<rect width="640" height="400" fill="url(#sky)"/>
<rect y="285" width="640" height="115" fill="#cbd5e1"/>
{shape}
<rect x="535" y="175" width="22" height="14" rx="4" fill="#fde68a"/><rect x="83" y="178" width="14" height="12" rx="3" fill="#f87171"/>
<circle cx="190" cy="245" r="40" fill="#111827"/><circle cx="190" cy="245" r="17" fill="#9ca3af"/>
<circle cx="450" cy="245" r="40" fill="#111827"/><circle cx="450" cy="245" r="17" fill="#9ca3af"/>
<text x="320" y="330" font-family="sans-serif" font-size="30" font-weight="bold" text-anchor="middle" fill="#0f172a">{make}</text>
<text x="320" y="362" font-family="sans-serif" font-size="22" text-anchor="middle" fill="#1e293b">{model}</text>
<text x="320" y="388" font-family="sans-serif" font-size="15" text-anchor="middle" fill="#475569">{label} · {color}</text>
</svg>"##,
        title = escape(v.name),
        make = escape(v.make),
        model = escape(v.model),
        color = escape(v.color),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn<'a>(name: &'a str, model: &'a str, category: &'a str, color: &'a str) -> Drawn<'a> {
        Drawn { name, make: "Toyota", model, category, color }
    }

    #[test]
    fn svg_names_are_escaped() {
        let svg = vehicle_svg(&drawn("A <b> & \"c\"", "X", "luxury", "Noir"));
        assert!(svg.contains("aria-label=\"A &lt;b&gt; &amp; &quot;c&quot;\""));
        assert!(svg.starts_with("<svg"));
    }

    #[test]
    fn vehicles_are_told_apart_by_shape_and_colour() {
        assert_eq!(body_of(&drawn("Toyota Hiace", "Hiace", "utility", "Blanc")), Body::Van);
        assert_eq!(body_of(&drawn("Toyota Hilux", "Hilux", "utility", "Blanc")), Body::Pickup);
        assert_eq!(body_of(&drawn("Lexus LX 600", "LX 600", "luxury", "Blanc")), Body::Suv);
        assert_eq!(body_of(&drawn("Toyota Corolla", "Corolla", "economic", "Blanc")), Body::Sedan);
        assert_eq!(paint_of("Blanc nacré"), "#f1f5f9");
        assert_eq!(paint_of("Gris anthracite"), "#374151");
        assert_eq!(paint_of("Rouge"), "#b91c1c");
        assert_eq!(paint_of("Fuchsia"), "#94a3b8");
        let red = vehicle_svg(&drawn("Suzuki Swift", "Swift", "economic", "Rouge"));
        let white = vehicle_svg(&drawn("Toyota Corolla", "Corolla", "economic", "Blanc"));
        assert!(red.contains("fill=\"#b91c1c\"") && !white.contains("fill=\"#b91c1c\""));
        assert!(red.contains(">Swift</text>"));
    }
}
