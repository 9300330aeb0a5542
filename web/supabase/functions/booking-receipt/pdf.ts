// The receipt as an A4 PDF (pdf-lib, the standard Helvetica fonts, so no font file is read): the
// company and its contact details, the reference, the customer, what was booked, the amount in the
// site's display currency (as the site formats it) and how it is paid.
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'npm:pdf-lib@1.17.1';
import { frenchDateTime, type Receipt, statusLabels } from './booking.ts';

const symbols = { USD: '$', CDF: 'FC', EUR: '€' } as const;

/** A dollar amount in the company's display currency, French style: « 1 065,00 $ », « 3 035 250 FC ». */
export function formatAmount(dollars: number, company: Receipt['company']): string {
  const digits = company.currency === 'CDF' ? 0 : 2;
  const n = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const value = Number.isFinite(dollars) ? dollars * company.rate : 0;
  return `${n.format(value)}\u00a0${symbols[company.currency]}`;
}

/** Whether the receipt acknowledges a settled booking or only a reservation. */
export const receiptTitle = (r: Receipt) => (r.status === 'completed' || r.status === 'active' ? 'Reçu' : 'Bon de réservation');

/** The file name a customer gets: « recu-3F2A9C1B.pdf ». */
export const receiptFileName = (r: Receipt) => `recu-${r.reference}.pdf`;

const ink = rgb(0.06, 0.09, 0.16);
const navy = rgb(0.09, 0.15, 0.33);
const grey = rgb(0.35, 0.39, 0.45);
const rule = rgb(0.85, 0.87, 0.9);

export async function renderReceipt(r: Receipt, issuedAt = new Date()): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const title = `${receiptTitle(r)} #${r.reference}`;
  doc.setTitle(`${title} — ${r.company.name}`);
  doc.setAuthor(r.company.name);
  doc.setSubject(r.title);
  doc.setLanguage('fr-FR');
  doc.setCreationDate(issuedAt);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([595.28, 841.89]);
  const pen = new Pen(page, regular, bold);
  const left = 56;
  const right = 595.28 - 56;

  // the company, and the document's title and reference on the right
  pen.text(r.company.name, left, 790, { size: 18, font: bold, color: navy });
  let y = 770;
  for (const line of [r.company.address, [r.company.phone, r.company.email].filter(Boolean).join(' · ')].filter(Boolean)) {
    y = pen.wrapped(line, left, y, 280, { size: 10, color: grey });
  }
  pen.right(receiptTitle(r), right, 790, { size: 20, font: bold, color: navy });
  pen.right(`Référence : #${r.reference}`, right, 768, { size: 12, font: bold });
  pen.right(`Émis le ${frenchDateTime(issuedAt)}`, right, 752, { size: 10, color: grey });
  y = Math.min(y, 740) - 12;
  pen.line(left, y, right);

  // the customer and the booking side by side
  y -= 24;
  const top = y;
  pen.text('CLIENT', left, y, { size: 9, font: bold, color: grey });
  y -= 16;
  for (const [line, font] of [[r.customer.name, bold], [r.customer.email, regular], [r.customer.phone, regular]] as const) {
    if (line) y = pen.wrapped(line, left, y, 220, { size: 11, font });
  }
  let y2 = top;
  const middle = 320;
  pen.text('RÉSERVATION', middle, y2, { size: 9, font: bold, color: grey });
  y2 -= 16;
  y2 = pen.wrapped(`Faite le ${frenchDateTime(r.createdAt)}`, middle, y2, right - middle, { size: 11 });
  y2 = pen.wrapped(`Statut : ${statusLabels[r.status] ?? r.status}`, middle, y2, right - middle, { size: 11, font: bold });
  y = Math.min(y, y2) - 20;

  // what was booked and its amount
  pen.line(left, y + 14, right);
  pen.text('Prestation', left, y, { size: 10, font: bold, color: grey });
  pen.right('Montant', right, y, { size: 10, font: bold, color: grey });
  pen.line(left, y - 8, right);
  y -= 28;
  const amount = formatAmount(r.total, r.company);
  pen.right(amount, right, y, { size: 11, font: bold });
  y = pen.wrapped(r.title, left, y, 360, { size: 11, font: bold, color: navy });
  for (const line of r.details) y = pen.wrapped(line, left, y, 360, { size: 10, color: grey });
  y -= 6;
  pen.line(left, y, right);
  y -= 24;
  pen.right(amount, right, y, { size: 16, font: bold, color: navy });
  pen.right('Total', right - bold.widthOfTextAtSize(pen.safe(amount), 16) - 16, y + 2, { size: 12, font: bold });

  // how it is paid
  y -= 44;
  pen.text('PAIEMENT', left, y, { size: 9, font: bold, color: grey });
  y -= 16;
  y = pen.wrapped(`Mode de paiement : ${r.payment.method}`, left, y, right - left, { size: 11 });
  y = pen.wrapped(`Statut du paiement : ${r.payment.status}`, left, y, right - left, { size: 11 });

  // the footer
  const contact = [r.company.phone, r.company.email].filter(Boolean).join(' ou ');
  pen.wrapped(
    `Montant calculé par notre système au moment de la réservation. Pour toute question, citez la référence #${r.reference}${
      contact ? ` et contactez-nous au ${contact}` : ''
    }.`,
    left,
    90,
    right - left,
    { size: 9, color: grey },
  );
  return await doc.save();
}

interface Style {
  size: number;
  font?: PDFFont;
  color?: ReturnType<typeof rgb>;
}

/** Writes text on the page with the standard fonts, leaving out what they cannot encode. */
class Pen {
  private encodable: Set<number>;

  constructor(private page: PDFPage, private regular: PDFFont, private bold: PDFFont) {
    this.encodable = new Set(regular.getCharacterSet());
  }

  /** The text the standard fonts can draw: narrow no-break spaces as no-break spaces, other unknown characters as « ? ». */
  safe(text: string): string {
    return [...text.replace(/[\u202f\u2009]/g, '\u00a0').replace(/[\r\n\t]+/g, ' ')]
      .map((c) => (this.encodable.has(c.codePointAt(0)!) ? c : '?'))
      .join('');
  }

  text(text: string, x: number, y: number, style: Style) {
    this.page.drawText(this.safe(text), { x, y, size: style.size, font: style.font ?? this.regular, color: style.color ?? ink });
  }

  /** Right-aligned at `x`. */
  right(text: string, x: number, y: number, style: Style) {
    const width = (style.font ?? this.regular).widthOfTextAtSize(this.safe(text), style.size);
    this.text(text, x - width, y, style);
  }

  /** Wrapped to `width`; returns the y of the next line. */
  wrapped(text: string, x: number, y: number, width: number, style: Style): number {
    const font = style.font ?? this.regular;
    let line = '';
    for (const word of this.safe(text).split(' ')) {
      const next = line ? `${line} ${word}` : word;
      if (line && font.widthOfTextAtSize(next, style.size) > width) {
        this.text(line, x, y, style);
        y -= style.size * 1.4;
        line = word;
      } else {
        line = next;
      }
    }
    if (line) this.text(line, x, y, style);
    return y - style.size * 1.4;
  }

  line(x1: number, y: number, x2: number) {
    this.page.drawLine({ start: { x: x1, y }, end: { x: x2, y }, thickness: 0.8, color: rule });
  }
}
