// A small set of line icons (24x24 viewBox, currentColor), so the app needs no icon font.
import type { SVGProps } from 'react';

const base = { viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 1.8, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;
type P = SVGProps<SVGSVGElement>;

export const IconPipelines = (p: P) => (<svg {...base} {...p}><rect x="3" y="4" width="6" height="5" rx="1.5" /><rect x="15" y="4" width="6" height="5" rx="1.5" /><rect x="9" y="15" width="6" height="5" rx="1.5" /><path d="M6 9v2.5a1.5 1.5 0 0 0 1.5 1.5h9a1.5 1.5 0 0 0 1.5-1.5V9M12 13v2" /></svg>);
export const IconEditor = (p: P) => (<svg {...base} {...p}><path d="M4 20h4l10.5-10.5a2.1 2.1 0 0 0-3-3L5 17v3z" /><path d="M13.5 6.5l3 3" /></svg>);
export const IconRuns = (p: P) => (<svg {...base} {...p}><rect x="3" y="4" width="4" height="4" rx="1" /><rect x="10" y="4" width="4" height="4" rx="1" /><rect x="17" y="4" width="4" height="4" rx="1" /><rect x="3" y="10" width="4" height="4" rx="1" /><rect x="10" y="10" width="4" height="4" rx="1" /><rect x="17" y="10" width="4" height="4" rx="1" /><path d="M3 18h18" /></svg>);
export const IconCluster = (p: P) => (<svg {...base} {...p}><rect x="3" y="3" width="18" height="6" rx="1.5" /><rect x="3" y="15" width="18" height="6" rx="1.5" /><path d="M7 6h.01M7 18h.01M11 6h6M11 18h6" /></svg>);
export const IconWhatIf = (p: P) => (<svg {...base} {...p}><path d="M4 19V5M4 19h16" /><path d="M7 15l4-5 3 3 5-7" /></svg>);
export const IconAccess = (p: P) => (<svg {...base} {...p}><circle cx="8" cy="15" r="4" /><path d="M11 12l8-8M16 7l2 2M14 9l2 2" /></svg>);
export const IconPlay = (p: P) => (<svg {...base} {...p}><path d="M7 5l12 7-12 7V5z" /></svg>);
export const IconPlus = (p: P) => (<svg {...base} {...p}><path d="M12 5v14M5 12h14" /></svg>);
export const IconSave = (p: P) => (<svg {...base} {...p}><path d="M5 4h11l3 3v13H5z" /><path d="M8 4v5h7V4M8 20v-6h8v6" /></svg>);
export const IconUpload = (p: P) => (<svg {...base} {...p}><path d="M12 16V4M7 9l5-5 5 5M4 20h16" /></svg>);
export const IconDownload = (p: P) => (<svg {...base} {...p}><path d="M12 4v12M7 11l5 5 5-5M4 20h16" /></svg>);
export const IconLayout = (p: P) => (<svg {...base} {...p}><rect x="3" y="9" width="5" height="6" rx="1" /><rect x="16" y="3" width="5" height="6" rx="1" /><rect x="16" y="15" width="5" height="6" rx="1" /><path d="M8 12h4m0 0V6h4m-4 6v6h4" /></svg>);
export const IconTrash = (p: P) => (<svg {...base} {...p}><path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13" /></svg>);
export const IconRefresh = (p: P) => (<svg {...base} {...p}><path d="M20 11a8 8 0 0 0-14.7-4.3L4 8M4 4v4h4M4 13a8 8 0 0 0 14.7 4.3L20 16M20 20v-4h-4" /></svg>);
export const IconCheck = (p: P) => (<svg {...base} {...p}><path d="M5 12.5l4.5 4.5L19 7.5" /></svg>);
export const IconClose = (p: P) => (<svg {...base} {...p}><path d="M6 6l12 12M18 6L6 18" /></svg>);
export const IconAlert = (p: P) => (<svg {...base} {...p}><path d="M12 3l10 18H2L12 3z" /><path d="M12 10v4M12 17.5h.01" /></svg>);
export const IconClock = (p: P) => (<svg {...base} {...p}><circle cx="12" cy="12" r="9" /><path d="M12 7v5l3 2" /></svg>);
export const IconFit = (p: P) => (<svg {...base} {...p}><path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" /></svg>);
export const IconLogout = (p: P) => (<svg {...base} {...p}><path d="M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10" /></svg>);
export const IconCode = (p: P) => (<svg {...base} {...p}><path d="M8 7l-5 5 5 5M16 7l5 5-5 5" /></svg>);
export const IconGraph = (p: P) => (<svg {...base} {...p}><circle cx="6" cy="6" r="2.5" /><circle cx="18" cy="12" r="2.5" /><circle cx="6" cy="18" r="2.5" /><path d="M8.3 7.2l7.4 3.6M8.3 16.8l7.4-3.6" /></svg>);
export const IconArrowRight = (p: P) => (<svg {...base} {...p}><path d="M4 12h15M13 6l6 6-6 6" /></svg>);
export const IconArrowDown = (p: P) => (<svg {...base} {...p}><path d="M12 4v15M6 13l6 6 6-6" /></svg>);
export const Logo = (p: P) => (<svg viewBox="0 0 32 32" {...p}><rect width="32" height="32" rx="8" fill="#4f46e5" /><path d="M8 9h16v3H17.5v12h-3V12H8z" fill="#fff" /><circle cx="9.5" cy="22.5" r="2" fill="#a5b4fc" /><circle cx="22.5" cy="22.5" r="2" fill="#a5b4fc" /></svg>);
