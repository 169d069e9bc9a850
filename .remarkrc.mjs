// remark-cli settings for `npm run lint:links`: every relative link and heading anchor in the
// Markdown files must resolve, offline (no repository host is consulted).
import remarkValidateLinks from 'remark-validate-links';

export default { plugins: [[remarkValidateLinks, { repository: false }]] };
