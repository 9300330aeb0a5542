import { Link } from 'react-router';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { formatDate } from '@/lib/format';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { usePosts } from '@/features/blog/api/blog';

export default function BlogPage() {
  usePageTitle('Blog');
  const posts = usePosts();
  return (
    <>
      <PageHero title="Blog" subtitle="Conseils et actualités pour vos déplacements à Kinshasa." />
      <Section>
        {posts.isPending ? (
          <Spinner label="Chargement des articles…" />
        ) : posts.isError ? (
          <ErrorState message={posts.error.message} onRetry={() => void posts.refetch()} />
        ) : posts.data.length === 0 ? (
          <EmptyState title="Aucun article publié pour le moment." />
        ) : (
          <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {posts.data.map((p) => {
              return (
                <article key={p.id} className="flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
                  <VehicleImage path={p.cover_image} alt={p.title} className="aspect-[5/3] w-full" />
                  <div className="flex flex-1 flex-col p-5">
                    <p className="text-xs text-slate-600">
                      <time dateTime={p.published_at ?? undefined}>{formatDate(p.published_at)}</time>
                      {p.category ? ` · ${p.category}` : ''}
                    </p>
                    <h2 className="mt-2 text-lg font-bold text-blue-950">{p.title}</h2>
                    <p className="mt-2 flex-1 text-sm text-slate-700">{p.excerpt}</p>
                    <Link to={paths.blogArticle(p.slug)} className="mt-4 font-semibold text-blue-900 hover:underline" aria-label={`Lire la suite : ${p.title}`}>
                      Lire la suite →
                    </Link>
                  </div>
                </article>
              );
            })}
          </div>
        )}
      </Section>
    </>
  );
}
