import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfText {
  text: string;
  pages: number;
  title?: string;
}

/** Extracts the text and page count of a PDF with pdf.js (no workers, no fonts loaded, no eval). */
export async function extractPdf(bytes: Buffer): Promise<PdfText> {
  const task = getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, disableFontFace: true, isEvalSupported: false, verbosity: 0 });
  const pdf = await task.promise;
  try {
    const pages: string[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('').trim());
      page.cleanup();
    }
    const meta = await pdf.getMetadata().catch(() => undefined);
    const title = (meta?.info as { Title?: string } | undefined)?.Title?.trim() || undefined;
    return { text: pages.join('\n\n').trim(), pages: pdf.numPages, title };
  } finally {
    await task.destroy();
  }
}
