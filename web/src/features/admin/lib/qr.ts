/**
 * supabase-js hands the enrolment's QR code as `data:image/svg+xml;utf-8,<svg…>`, the SVG not
 * encoded: a `#` (a colour) or `%` in it would break the image. Re-encode it for an <img src>.
 */
export function qrImageSrc(qrCode: string): string {
  const prefix = /^data:image\/svg\+xml(;[^,]*)?,/.exec(qrCode);
  const svg = prefix ? qrCode.slice(prefix[0].length) : qrCode;
  if (!svg.trimStart().startsWith('<')) return qrCode; // already base64 or percent-encoded
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
