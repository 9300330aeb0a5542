//! Illustrations of the seeded vehicles (no photo can be downloaded here): a simple SVG drawing
//! per vehicle, coloured by category, stored in the public `vehicles` bucket.

use std::sync::Arc;

use md5::{Digest, Md5};
use object_store::{ObjectStore, PutPayload};

use crate::storage::backend;
use crate::storage::db::object_metadata;

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
            .query_opt("select 1 from storage.objects where bucket_id = $1 and name = $2", &[&self.bucket, &file])
            .await
            .map_err(|e| e.to_string())?;
        if exists.is_some() {
            return Ok(false);
        }
        let version = uuid::Uuid::new_v4().to_string();
        let bytes = svg.into_bytes();
        let etag = format!("\"{}\"", hex::encode(Md5::digest(&bytes)));
        let size = bytes.len() as u64;
        self.store.put(&backend::key_of(&version), PutPayload::from(bytes)).await.map_err(|e| e.to_string())?;
        let metadata = object_metadata(size, &etag, "image/svg+xml", "max-age=3600");
        client
            .execute(
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

/// An SVG drawing of a vehicle with its name, coloured by category.
pub fn vehicle_svg(name: &str, category: &str) -> String {
    let (body, accent, label) = match category {
        "luxury" => ("#1f2937", "#d4af37", "Luxe"),
        "suv" => ("#14532d", "#86efac", "SUV"),
        "utility" => ("#7c2d12", "#fdba74", "Utilitaire"),
        _ => ("#1e3a8a", "#93c5fd", "Économique"),
    };
    let roof = if category == "suv" || category == "utility" {
        "M150 150 L210 95 L420 95 L470 150 Z"
    } else {
        "M170 150 L240 100 L390 100 L450 150 Z"
    };
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 400" role="img" aria-label="{title}">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f8fafc"/><stop offset="1" stop-color="#e2e8f0"/></linearGradient></defs>
<rect width="640" height="400" fill="url(#sky)"/>
<rect y="300" width="640" height="100" fill="#cbd5e1"/>
<path d="{roof}" fill="{body}" opacity="0.9"/>
<rect x="90" y="150" width="460" height="90" rx="30" fill="{body}"/>
<rect x="110" y="170" width="420" height="12" rx="6" fill="{accent}"/>
<circle cx="190" cy="250" r="42" fill="#111827"/><circle cx="190" cy="250" r="18" fill="#9ca3af"/>
<circle cx="450" cy="250" r="42" fill="#111827"/><circle cx="450" cy="250" r="18" fill="#9ca3af"/>
<text x="320" y="345" font-family="sans-serif" font-size="28" text-anchor="middle" fill="#0f172a">{title}</text>
<text x="320" y="378" font-family="sans-serif" font-size="18" text-anchor="middle" fill="#475569">{label}</text>
</svg>"##,
        title = escape(name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_names_are_escaped() {
        let svg = vehicle_svg("A <b> & \"c\"", "luxury");
        assert!(svg.contains("A &lt;b&gt; &amp; &quot;c&quot;"));
        assert!(svg.starts_with("<svg"));
    }
}
