/**
 * The words of a text as people read them, lowercased: identifiers are split at their seams, so
 * `read_text_file`, `getFileInfo`, `list-containers`, `get36kr` and `HTMLParser` read as the words an
 * agent would type (`read text file`, `get file info`, `get 36 kr`, `html parser`). Anything that is
 * neither a letter nor a digit separates words; apostrophes inside a word are dropped (`what's` reads
 * `whats`), so a possessive stays one word.
 */
export function splitIntoWords(text: string): string[] {
  const words: string[] = [];
  for (const run of text.replace(/(\p{L})['’](\p{L})/gu, '$1$2').split(/[^\p{L}\p{N}]+/u)) {
    if (!run) continue;
    // Seams: lower or digit followed by upper, an acronym followed by a capitalised word, and any
    // change between letters and digits.
    const spaced = run
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/(\p{L})(\p{N})/gu, '$1 $2')
      .replace(/(\p{N})(\p{L})/gu, '$1 $2');
    for (const word of spaced.split(' ')) if (word) words.push(word.toLowerCase());
  }
  return words;
}
