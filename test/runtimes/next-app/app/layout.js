// The root layout Next.js asks for; this fixture has no pages, only the A2A route handlers.
import { createElement } from 'react';

export default function RootLayout({ children }) {
  return createElement('html', { lang: 'en' }, createElement('body', null, children));
}
