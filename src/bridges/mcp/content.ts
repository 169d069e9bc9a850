/**
 * A2A parts and MCP content blocks, each way. A2A data parts have no MCP block of their own:
 * they travel as JSON text (and as `structuredContent` when the result is one object); MCP
 * blocks A2A cannot hold faithfully (audio as a file, a resource link) become file parts.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Part } from '../../model/schema.js';

/** Bytes of one tool result the bridge turns into parts, beyond which it refuses the result. */
export const MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** Why a tool result cannot become A2A parts. */
export class UnrepresentableContentError extends Error {
  override name = 'UnrepresentableContentError';
}

/** The MCP content of one A2A part; `uriBase` names embedded files (`a2a://tasks/<id>/...`). */
export function partToContent(part: Part, uriBase: string, index: number): ContentBlock {
  if (part.text !== undefined) return { type: 'text', text: part.text };
  if (part.data !== undefined) return { type: 'text', text: JSON.stringify(part.data) };
  const mimeType = part.mediaType ?? 'application/octet-stream';
  const name = part.filename ?? `part-${index}`;
  if (part.raw !== undefined) {
    if (mimeType.startsWith('image/')) return { type: 'image', data: part.raw, mimeType };
    if (mimeType.startsWith('audio/')) return { type: 'audio', data: part.raw, mimeType };
    return {
      type: 'resource',
      resource: { uri: `${uriBase}/${encodeURIComponent(name)}`, mimeType, blob: part.raw },
    };
  }
  return { type: 'resource_link', uri: part.url ?? '', name, mimeType };
}

/** The A2A parts of an MCP tool result; throws {@link UnrepresentableContentError}. */
export function resultToParts(result: CallToolResult): Part[] {
  const parts: Part[] = [];
  let bytes = 0;
  const count = (n: number): void => {
    bytes += n;
    if (bytes > MAX_RESULT_BYTES) {
      throw new UnrepresentableContentError(`the tool's result is larger than ${MAX_RESULT_BYTES} bytes`);
    }
  };
  const content: unknown = result.content;
  if (content !== undefined && !Array.isArray(content)) {
    throw new UnrepresentableContentError('the tool result has no content array');
  }
  for (const block of (content ?? []) as ContentBlock[]) parts.push(blockToPart(block, count));
  if (result.structuredContent !== undefined) {
    count(JSON.stringify(result.structuredContent).length);
    parts.push({ data: result.structuredContent });
  }
  return parts;
}

function blockToPart(block: ContentBlock, count: (n: number) => void): Part {
  switch (block.type) {
    case 'text':
      count(block.text.length);
      return { text: block.text };
    case 'image':
    case 'audio':
      checkBase64(block.data, block.type);
      count(block.data.length);
      return { raw: block.data, mediaType: block.mimeType };
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') {
        count(r.text.length);
        return { text: r.text, ...(r.mimeType ? { mediaType: r.mimeType } : {}), filename: fileName(r.uri) };
      }
      if ('blob' in r && typeof r.blob === 'string') {
        checkBase64(r.blob, 'resource');
        count(r.blob.length);
        return { raw: r.blob, ...(r.mimeType ? { mediaType: r.mimeType } : {}), filename: fileName(r.uri) };
      }
      throw new UnrepresentableContentError(`embedded resource ${r.uri} has neither text nor blob`);
    }
    case 'resource_link':
      count(block.uri.length);
      return {
        url: block.uri,
        filename: block.name,
        ...(block.mimeType ? { mediaType: block.mimeType } : {}),
      };
    default:
      throw new UnrepresentableContentError(
        `content of type ${JSON.stringify((block as { type?: unknown }).type)} has no A2A part`,
      );
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkBase64(data: unknown, what: string): void {
  if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
    throw new UnrepresentableContentError(`${what} content is not valid base64`);
  }
}

function fileName(uri: string): string {
  const tail = uri.split(/[/\\]/).pop() ?? '';
  try {
    return decodeURIComponent(tail) || uri;
  } catch {
    return tail || uri;
  }
}
