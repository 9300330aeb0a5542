import { Link, useParams } from 'react-router';
import { ErrorState, Spinner } from '@/components/ui/states';
import { usePageTitle } from '@/components/ui/page';
import { paths } from '@/config/paths';
import { formatDate } from '@/lib/format';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { splitContent, usePost } from '@/features/blog/api/blog';

function Back() {
  return (
    <Link to={paths.blog} className="font-semibold text-blue-900 hover:underline">
      ← Retour aux articles
    </Link>
  );
}

export default function BlogArticlePage() {
  const { id = '' } = useParams();
  const post = usePost(id);
  usePageTitle(post.data ? post.data.title : post.isPending ? 'Blog' : 'Article non trouvé');
  if (post.isPending) return <Spinner label="Chargement de l'article…" />;
  if (post.isError) return <div className="mx-auto max-w-3xl px-4 py-10"><ErrorState message={post.error.message} onRetry={() => void post.refetch()} /></div>;
  if (!post.data)
    return (
      <div className="mx-auto max-w-3xl px-4 py-16 text-center">
        <h1 className="text-2xl font-bold text-blue-950">Article non trouvé</h1>
        <p className="mt-2 text-slate-700">Cet article n'existe pas ou n'est plus publié.</p>
        <p className="mt-6"><Back /></p>
      </div>
    );
  const p = post.data;
  return (
    <article className="mx-auto max-w-3xl px-4 py-10">
      <Back />
      <VehicleImage path={p.cover_image} alt={p.title} className="mt-6 aspect-video w-full rounded-2xl" />
      <p className="mt-6 text-sm text-slate-600">
        <time dateTime={p.published_at ?? undefined}>{formatDate(p.published_at)}</time> · {p.author}
      </p>
      <h1 className="mt-2 text-3xl font-extrabold text-blue-950">{p.title}</h1>
      <div className="mt-6 space-y-4 text-lg leading-relaxed text-slate-800">
        {splitContent(p.content).map((b, i) =>
          b.kind === 'heading' ? (
            <h2 key={i} className="pt-2 text-xl font-bold text-blue-950">{b.text}</h2>
          ) : (
            <p key={i}>{b.text}</p>
          ),
        )}
      </div>
      <p className="mt-10"><Back /></p>
    </article>
  );
}
