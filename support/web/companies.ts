// Composed company sites for link scoring, profiles and the homepage selection pass,
// written with their expected selections BEFORE the scorer exists. Each site is a homepage whose
// links lead to pages with a head (<title>, meta description) and a little body text, as small
// service businesses build them: a services hub or top-level service slugs, a service-area tree of
// city pages (SEO filler that must never be selected), a blog with and without signal, a product
// catalogue, and login/legal pages.
import type { HostSpec, WebResponse } from './hosts.js';

export interface CompanyPage {
  title: string;
  description?: string;
  /** Body paragraphs. */
  text?: string[];
}

export interface CompanyLink {
  path: string;
  anchor: string;
  section: 'nav' | 'body' | 'footer';
}

/** What the homepage pass with the fire-protection profile must select on a site (cap 4, the homepage counting). */
export interface ExpectedSelection {
  /** Paths that must be selected. */
  include: string[];
  /** Paths (or prefixes ending in `*`) that must never be selected. */
  exclude: string[];
  /** At least this many selected pages are services or About pages. */
  servicesOrAbout: number;
  /** Blog or news pages selected, at most. */
  maxBlog: number;
}

/** What a company prints in every page's footer: what the fire-protection profile's fields extract. */
export interface CompanyContact {
  phone: string;
  address: string;
  /** Certifications named in the footer (NICET, NFPA …), in order. */
  certifications: string[];
}

export interface CompanySite {
  name: string;
  contact: CompanyContact;
  home: CompanyPage;
  links: CompanyLink[];
  pages: Record<string, CompanyPage>;
  expected: ExpectedSelection;
}

const CITIES = [
  'Springfield',
  'Riverton',
  'Lakeside',
  'Fairview',
  'Georgetown',
  'Salem',
  'Madison',
  'Franklin',
  'Clinton',
  'Arlington',
  'Ashland',
  'Burlington',
  'Dover',
  'Greenville',
  'Hudson',
  'Kingston',
  'Milford',
  'Newport',
  'Oxford',
  'Princeton',
  'Auburn',
  'Bristol',
  'Chester',
  'Dayton',
  'Easton',
  'Hamilton',
  'Jackson',
  'Lebanon',
  'Marion',
  'Oakland',
  'Plymouth',
  'Quincy',
  'Richmond',
  'Shelby',
  'Troy',
  'Union',
  'Vienna',
  'Warren',
  'York',
  'Winchester',
];

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** Dozens of city pages whose titles are stuffed with the query's words: what a service-area exclusion exists for. */
function serviceArea(prefix: string, anchorPrefix: string): { links: CompanyLink[]; pages: Record<string, CompanyPage> } {
  const links: CompanyLink[] = [{ path: prefix, anchor: 'Service area', section: 'footer' }];
  const pages: Record<string, CompanyPage> = {
    [prefix]: {
      title: 'Fire Protection Service Area | Sprinkler Inspection, Alarm Testing',
      description: 'Fire sprinkler inspection and alarm testing near you.',
    },
  };
  for (const city of CITIES) {
    const path = `${prefix}/${slug(city)}`;
    links.push({ path, anchor: `${anchorPrefix} ${city}`, section: 'footer' });
    pages[path] = {
      title: `Fire Sprinkler Inspection & Alarm Testing in ${city}`,
      description: `Fire protection, sprinkler inspection, testing, alarm and suppression services in ${city}.`,
      text: [`We serve ${city} with fire protection, sprinkler inspection and alarm testing.`],
    };
  }
  return { links, pages };
}

const LEGAL: Array<[string, string, CompanyPage]> = [
  ['/login', 'Customer login', { title: 'Customer Portal Login', description: 'Log in to view inspection reports.' }],
  ['/privacy-policy', 'Privacy policy', { title: 'Privacy Policy' }],
  ['/terms', 'Terms of use', { title: 'Terms and Conditions' }],
  ['/cart', 'Cart', { title: 'Your Cart' }],
];

function legal(): { links: CompanyLink[]; pages: Record<string, CompanyPage> } {
  return {
    links: LEGAL.map(([path, anchor]) => ({ path, anchor, section: 'footer' as const })),
    pages: Object.fromEntries(LEGAL.map(([path, , p]) => [path, p])),
  };
}

const CONTACTS: Record<string, CompanyContact> = {
  hub: { phone: '(612) 555-0100', address: '1200 Industrial Blvd, Springfield, MN 55401', certifications: ['NICET Level III', 'NFPA 25', 'NFPA 72'] },
  toplevel: { phone: '651-555-0142', address: '88 Beacon Street, Riverton, MN 55102', certifications: ['NFPA 13'] },
  blog: { phone: '(763) 555-0175', address: '5 Summit Way, Lakeside, MN 55303', certifications: [] },
  catalogue: { phone: '952.555.0123', address: '400 Delta Drive, Fairview, MN 55337', certifications: ['UL Listed', 'FM Approved'] },
};

function site(
  name: string,
  home: CompanyPage,
  own: CompanyLink[],
  pages: Record<string, CompanyPage>,
  expected: ExpectedSelection,
  extras: Array<ReturnType<typeof legal>>,
): CompanySite {
  return {
    name,
    contact: CONTACTS[name]!,
    home,
    links: [...own, ...extras.flatMap((e) => e.links)],
    pages: Object.assign({}, pages, ...extras.map((e) => e.pages)),
    expected,
  };
}

/** The fixture sites, each with what the fire-protection homepage pass must select. */
export const COMPANIES: CompanySite[] = [
  // A services hub with children: the hub and its best child are selected, About next; never the service area.
  site(
    'hub',
    {
      title: 'Acme Fire Protection — Sprinklers, Alarms, Extinguishers',
      description: 'Fire protection contractor: sprinkler and alarm inspection, testing and installation.',
    },
    [
      { path: '/services', anchor: 'Services', section: 'nav' },
      { path: '/services/sprinkler-inspection', anchor: 'Sprinkler inspection & testing', section: 'body' },
      { path: '/services/fire-alarm-installation', anchor: 'Fire alarm installation', section: 'body' },
      { path: '/services/extinguisher-maintenance', anchor: 'Extinguisher maintenance', section: 'body' },
      { path: '/about-us', anchor: 'About us', section: 'nav' },
      { path: '/contact', anchor: 'Contact', section: 'nav' },
      { path: '/careers', anchor: 'Careers', section: 'footer' },
      { path: '/certifications', anchor: 'NICET and NFPA certifications', section: 'body' },
    ],
    {
      '/services': {
        title: 'Fire Protection Services',
        description: 'Inspection, testing, maintenance and installation of fire sprinkler, alarm and suppression systems.',
      },
      '/services/sprinkler-inspection': {
        title: 'Fire Sprinkler Inspection and Testing',
        description: 'NFPA 25 sprinkler inspection, testing and maintenance.',
        text: ['Quarterly and annual fire sprinkler inspection and testing.'],
      },
      '/services/fire-alarm-installation': { title: 'Fire Alarm Installation', description: 'Design and installation of fire alarm systems.' },
      '/services/extinguisher-maintenance': { title: 'Fire Extinguisher Maintenance', description: 'Annual extinguisher inspection and recharge.' },
      '/about-us': { title: 'About Acme Fire Protection', description: 'Family-owned fire protection company since 1985.' },
      '/contact': { title: 'Contact Us', description: 'Call for a fire protection inspection quote.' },
      '/careers': { title: 'Careers — Sprinkler Fitters Wanted', description: 'Join our fire protection team.' },
      '/certifications': { title: 'Certifications', description: 'NICET certified technicians; NFPA member.' },
    },
    {
      include: ['/', '/services', '/services/sprinkler-inspection', '/about-us'],
      exclude: ['/service-area*', '/login', '/privacy-policy', '/terms', '/cart'],
      servicesOrAbout: 3,
      maxBlog: 0,
    },
    [serviceArea('/service-area', 'Fire protection in'), legal()],
  ),
  // Top-level service slugs, no hub: whitelisted slugs are service pages (tier 1 above tier 2); a
  // service-like slug with no whitelisted term is not; the city pages live under /service-areas.
  site(
    'toplevel',
    { title: 'Beacon Fire & Safety', description: 'Fire sprinkler inspection, fire alarm testing and suppression systems.' },
    [
      { path: '/sprinkler-inspection', anchor: 'Sprinkler Inspection', section: 'nav' },
      { path: '/fire-alarm-testing', anchor: 'Fire Alarm Testing', section: 'nav' },
      { path: '/suppression-installation', anchor: 'Suppression Installation', section: 'nav' },
      { path: '/kitchen-hoods', anchor: 'Kitchen Hoods', section: 'nav' },
      { path: '/about', anchor: 'About', section: 'nav' },
      { path: '/contact', anchor: 'Contact', section: 'nav' },
    ],
    {
      '/sprinkler-inspection': { title: 'Fire Sprinkler Inspection', description: 'Sprinkler inspection and testing to NFPA 25.' },
      '/fire-alarm-testing': { title: 'Fire Alarm Testing', description: 'Annual fire alarm testing and inspection.' },
      '/suppression-installation': { title: 'Fire Suppression System Installation', description: 'Clean agent and wet chemical suppression installation.' },
      '/kitchen-hoods': { title: 'Kitchen Hood Cleaning', description: 'Restaurant kitchen hood cleaning.' },
      '/about': { title: 'About Beacon Fire & Safety', description: 'Our fire protection company and team.' },
      '/contact': { title: 'Contact', description: 'Request a fire protection inspection.' },
    },
    {
      include: ['/', '/sprinkler-inspection', '/about'],
      exclude: ['/service-areas*', '/kitchen-hoods', '/login', '/privacy-policy'],
      servicesOrAbout: 3,
      maxBlog: 0,
    },
    [serviceArea('/service-areas', 'Service area:'), legal()],
  ),
  // A blog with one strong post and one without signal: at most the strong one.
  site(
    'blog',
    { title: 'Summit Fire Protection', description: 'Fire protection services: sprinklers, alarms and extinguishers.' },
    [
      { path: '/services', anchor: 'Our services', section: 'nav' },
      { path: '/services/inspection', anchor: 'Inspection', section: 'body' },
      { path: '/about-us', anchor: 'Who we are', section: 'nav' },
      { path: '/blog', anchor: 'Blog', section: 'nav' },
      { path: '/blog/annual-sprinkler-inspection-checklist', anchor: 'Annual fire sprinkler inspection and testing checklist', section: 'body' },
      { path: '/blog/company-picnic', anchor: 'Our company picnic', section: 'body' },
      { path: '/news/new-truck', anchor: 'We bought a new truck', section: 'body' },
    ],
    {
      '/services': { title: 'Services', description: 'Fire sprinkler, alarm and suppression inspection, testing and installation.' },
      '/services/inspection': { title: 'Fire Protection Inspection', description: 'Sprinkler and alarm inspection and testing.' },
      '/about-us': { title: 'About Summit', description: 'Who we are.' },
      '/blog': { title: 'Blog', description: 'News from Summit.' },
      '/blog/annual-sprinkler-inspection-checklist': {
        title: 'Annual Fire Sprinkler Inspection and Testing Checklist',
        description: 'What a fire sprinkler inspection, alarm testing and suppression check covers.',
      },
      '/blog/company-picnic': { title: 'Company Picnic 2024', description: 'Photos from our picnic.' },
      '/news/new-truck': { title: 'A New Service Truck', description: 'Our fleet grows.' },
    },
    { include: ['/', '/services', '/about-us'], exclude: ['/blog/company-picnic', '/news/new-truck', '/blog'], servicesOrAbout: 3, maxBlog: 1 },
    [legal()],
  ),
  // A product catalogue beside services: services first, products only if clearly better.
  site(
    'catalogue',
    { title: 'Delta Fire Supply & Service', description: 'Fire protection products and services.' },
    [
      { path: '/products', anchor: 'Products', section: 'nav' },
      { path: '/products/sprinkler-heads', anchor: 'Sprinkler heads', section: 'body' },
      { path: '/products/extinguishers', anchor: 'Fire extinguishers', section: 'body' },
      { path: '/products/alarm-panels', anchor: 'Alarm panels', section: 'body' },
      { path: '/services', anchor: 'Services', section: 'nav' },
      { path: '/services/testing', anchor: 'Testing and inspection', section: 'body' },
      { path: '/company', anchor: 'Company', section: 'nav' },
    ],
    {
      '/products': { title: 'Fire Protection Products', description: 'Sprinkler heads, extinguishers, alarm panels.' },
      '/products/sprinkler-heads': { title: 'Sprinkler Heads', description: 'Pendent, upright and sidewall sprinkler heads.' },
      '/products/extinguishers': { title: 'Fire Extinguishers', description: 'ABC and CO2 extinguishers.' },
      '/products/alarm-panels': { title: 'Fire Alarm Panels', description: 'Addressable fire alarm control panels.' },
      '/services': { title: 'Fire Protection Services', description: 'Inspection, testing, installation and repair of fire systems.' },
      '/services/testing': { title: 'Fire System Testing and Inspection', description: 'Sprinkler, alarm and suppression testing.' },
      '/company': { title: 'About Delta', description: 'Our company history.' },
    },
    { include: ['/', '/services', '/services/testing'], exclude: ['/login', '/cart'], servicesOrAbout: 3, maxBlog: 0 },
    [legal()],
  ),
];

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function footer(c: CompanyContact): string {
  const certs = c.certifications.length ? `<p>Certified: ${c.certifications.map((x) => `<span>${escape(x)}</span>`).join(', ')}</p>` : '';
  return `<p>Call <a href="tel:${c.phone.replace(/[^\d]/g, '')}">${escape(c.phone)}</a></p><address>${escape(c.address)}</address>${certs}`;
}

function html(p: CompanyPage, links: CompanyLink[] = [], contact?: CompanyContact): string {
  const head = `<title>${escape(p.title)}</title>${p.description ? `<meta name="description" content="${escape(p.description)}">` : ''}`;
  const section = (s: CompanyLink['section']) =>
    links
      .filter((l) => l.section === s)
      .map((l) => `<a href="${l.path}">${escape(l.anchor)}</a>`)
      .join(' ');
  const text = (p.text ?? [p.description ?? p.title]).map((t) => `<p>${escape(t)}</p>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}</head><body><nav>${section('nav')}</nav><main><h1>${escape(p.title)}</h1>${text}<p>${section('body')}</p></main><footer>${section('footer')}${contact ? footer(contact) : ''}</footer></body></html>`;
}

/** A response of a company site: robots.txt, the homepage with its links, a listed page, or a 404. */
export function companyResponse(c: CompanySite, path: string): WebResponse {
  if (path === '/robots.txt') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' };
  const page = path === '/' ? c.home : c.pages[path];
  if (!page) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html(page, path === '/' ? c.links : [], c.contact) };
}

/** One company site as a host of the synthetic web (`company-<name>`). */
export function companyHost(c: CompanySite): HostSpec {
  return { name: `company-${c.name}`, disallowed: () => false, isTrap: () => false, handle: (req) => companyResponse(c, req.path) };
}
