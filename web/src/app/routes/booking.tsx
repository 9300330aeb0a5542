import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { notify } from '@/lib/notify';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { useSession } from '@/lib/session';
import { isCategory } from '@/lib/labels';
import { cn } from '@/lib/cn';
import type { AvailableVehicle, BookVehicleResult } from '@/types/database';
import { useBookVehicle, useVehicleSearch, type SearchParams } from '@/features/booking/api/booking';
import { initialSearch, SearchForm, useSearchForm, type SearchFormState } from '@/features/booking/components/search-form';
import { ResultCard } from '@/features/booking/components/result-card';
import { DetailsForm } from '@/features/booking/components/details-form';
import { Confirmation } from '@/features/booking/components/confirmation';
import type { SearchValues } from '@/features/booking/schemas/booking-schemas';

type Step = 'search' | 'details' | 'confirmation';
const steps: Array<{ key: Step; label: string }> = [
  { key: 'search', label: 'Recherche' },
  { key: 'details', label: 'Vos informations' },
  { key: 'confirmation', label: 'Confirmation' },
];

function toParams(v: SearchValues | SearchFormState): SearchParams {
  return {
    startDate: v.startDate,
    endDate: v.endDate,
    category: isCategory(String(v.category)) ? (v.category as SearchParams['category']) : '',
    maxPrice: Number(v.maxPrice),
    minSeats: Number(v.minSeats),
    transmission: String(v.transmission),
    fuelType: String(v.fuelType),
  };
}

export default function BookingPage() {
  usePageTitle('Réserver un véhicule');
  const [params] = useSearchParams();
  const { user, profile } = useSession();
  const searchForm = useSearchForm(initialSearch(params.get('start'), params.get('end')));
  const [pickupLocation = '', dropoffLocation = ''] = searchForm.watch(['pickupLocation', 'dropoffLocation']);
  const [search, setSearch] = useState<SearchParams | null>(() => toParams(initialSearch(params.get('start'), params.get('end'))));
  const [step, setStep] = useState<Step>('search');
  const [selected, setSelected] = useState<AvailableVehicle | null>(null);
  const [booked, setBooked] = useState<{ result: BookVehicleResult; email: string } | null>(null);
  const results = useVehicleSearch(search);
  const book = useBookVehicle();
  const wanted = useRef(params.get('vehicle'));
  const headingRef = useRef<HTMLHeadingElement>(null);

  // A vehicle chosen on a fleet card goes straight to the details when it is free on the dates.
  useEffect(() => {
    if (!wanted.current || !results.data) return;
    const v = results.data.find((r) => r.id === wanted.current);
    wanted.current = null;
    if (v) {
      setSelected(v);
      setStep('details');
    }
  }, [results.data]);

  useEffect(() => {
    if (results.isError) notify.error('Erreur lors de la recherche de véhicules');
  }, [results.isError]);

  useEffect(() => {
    headingRef.current?.focus();
    window.scrollTo({ top: 0 });
  }, [step]);

  const stepIndex = steps.findIndex((s) => s.key === step);

  return (
    <>
      <PageHero title="Réserver un véhicule" subtitle="Choisissez vos dates, comparez les véhicules disponibles et réservez en quelques minutes, avec ou sans compte." />
      <Section>
        <ol className="mb-6 flex flex-wrap gap-2 text-sm" aria-label="Étapes de la réservation">
          {steps.map((s, i) => (
            <li
              key={s.key}
              aria-current={s.key === step ? 'step' : undefined}
              className={cn('rounded-full px-3 py-1 font-medium', i === stepIndex ? 'bg-blue-900 text-white' : i < stepIndex ? 'bg-green-100 text-green-800' : 'bg-slate-200 text-slate-700')}
            >
              {i + 1}. {s.label}
            </li>
          ))}
        </ol>
        <h2 ref={headingRef} tabIndex={-1} className="sr-only">
          {steps[stepIndex]?.label}
        </h2>

        {step === 'search' && (
          <div className="space-y-8">
            <SearchForm form={searchForm} onSearch={(v) => setSearch(toParams(v))} busy={results.isFetching} />
            <div>
              <h2 className="mb-4 text-xl font-bold text-blue-950" aria-live="polite">
                Véhicules disponibles ({results.data?.length ?? 0})
              </h2>
              {results.isPending ? (
                <Spinner label="Recherche des véhicules disponibles…" />
              ) : results.isError ? (
                <ErrorState message="Erreur lors de la recherche de véhicules" onRetry={() => void results.refetch()} />
              ) : results.data.length === 0 ? (
                <EmptyState title="Aucun véhicule disponible">Essayez de modifier vos critères de recherche</EmptyState>
              ) : (
                <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
                  {results.data.map((v) => (
                    <ResultCard
                      key={v.id}
                      vehicle={v}
                      onSelect={() => {
                        setSelected(v);
                        book.reset();
                        setStep('details');
                      }}
                    />
                  ))}
                </div>
              )}
            </div>
          </div>
        )}

        {step === 'details' && selected && search && (
          <DetailsForm
            vehicle={selected}
            startDate={search.startDate}
            endDate={search.endDate}
            pickupLocation={pickupLocation}
            dropoffLocation={dropoffLocation}
            defaults={{ fullName: profile?.full_name ?? '', email: profile?.email ?? user?.email ?? '', phone: profile?.phone ?? '' }}
            busy={book.isPending}
            error={book.error?.message ?? null}
            onBack={() => setStep('search')}
            onSubmit={(d) =>
              book.mutate(
                {
                  vehicleId: selected.id,
                  startDate: search.startDate,
                  endDate: search.endDate,
                  pickupLocation,
                  dropoffLocation: dropoffLocation || pickupLocation,
                  ...d,
                },
                {
                  onSuccess: (result) => {
                    setBooked({ result, email: d.email });
                    setStep('confirmation');
                    notify.success('Réservation enregistrée');
                  },
                  onError: (err) => notify.error(err.message || 'Erreur lors de la réservation'),
                },
              )
            }
          />
        )}

        {step === 'confirmation' && booked && selected && search && (
          <Confirmation
            result={booked.result}
            vehicleName={selected.name}
            startDate={search.startDate}
            endDate={search.endDate}
            email={booked.email}
            signedIn={!!user}
            onNewSearch={() => {
              setBooked(null);
              setSelected(null);
              setStep('search');
              void results.refetch();
            }}
          />
        )}
      </Section>
    </>
  );
}
