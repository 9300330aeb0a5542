import { useQuery } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { BlogPost } from '@/types/database';

const COLUMNS = 'id, slug, title, excerpt, content, author, category, cover_image, published_at';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The public blog shows published posts only: the database also lets administrators read drafts,
 * and an administrator browsing /blog must not see them as published articles.
 */
export async function listPosts(): Promise<BlogPost[]> {
  const { data, error } = await supabase().from('blog_posts').select(COLUMNS).eq('published', true).order('published_at', { ascending: false });
  if (error) throw toAppError(error, 'Erreur lors du chargement des articles');
  return (data ?? []) as BlogPost[];
}

/** A published article by slug or id; null when none matches (a draft reads as not found). */
export async function getPost(idOrSlug: string): Promise<BlogPost | null> {
  const q = supabase().from('blog_posts').select(COLUMNS).eq('published', true);
  const { data, error } = await (UUID.test(idOrSlug) ? q.eq('id', idOrSlug) : q.eq('slug', idOrSlug)).maybeSingle();
  if (error) throw toAppError(error, "Erreur lors du chargement de l'article");
  return (data as BlogPost | null) ?? null;
}

export const blogKeys = {
  all: ['blog'] as const,
  list: () => [...blogKeys.all, 'list'] as const,
  post: (id: string) => [...blogKeys.all, 'post', id] as const,
};

export const usePosts = () => useQuery({ queryKey: blogKeys.list(), queryFn: listPosts });
export const usePost = (id: string) => useQuery({ queryKey: blogKeys.post(id), queryFn: () => getPost(id) });

/** Content in paragraphs: "## " lines are headings, blank lines separate paragraphs. */
export type Block = { kind: 'heading'; text: string } | { kind: 'paragraph'; text: string };
export function splitContent(content: string): Block[] {
  const blocks: Block[] = [];
  for (const chunk of content.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const lines = chunk.split('\n');
    let para: string[] = [];
    const flush = () => {
      if (para.length) blocks.push({ kind: 'paragraph', text: para.join(' ').trim() });
      para = [];
    };
    for (const line of lines) {
      const m = /^#{2,3}\s+(.*)$/.exec(line.trim());
      if (m?.[1]) {
        flush();
        blocks.push({ kind: 'heading', text: m[1].trim() });
      } else if (line.trim()) para.push(line.trim());
    }
    flush();
  }
  return blocks;
}
