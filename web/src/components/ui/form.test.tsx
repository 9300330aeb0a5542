import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { z } from 'zod';
import { CheckboxField, Field, firstError, Form, NumberFormField, SelectFormField, useZodForm } from './form';

afterEach(cleanup);

const schema = z.object({
  name: z.string().trim().min(2, 'Au moins 2 caractères'),
  city: z.enum(['kinshasa', 'goma'], { message: 'Choisissez une ville' }),
  news: z.boolean(),
});

function Demo({ onValid }: { onValid: (v: z.output<typeof schema>) => void }) {
  const form = useZodForm(schema, { defaultValues: { name: '', city: '' as 'kinshasa', news: false } });
  return (
    <Form form={form} onValid={onValid} aria-label="Démo">
      <Field name="name" label="Nom" hint="Votre nom complet" required />
      <SelectFormField name="city" label="Ville">
        <option value="">—</option>
        <option value="kinshasa">Kinshasa</option>
        <option value="goma">Goma</option>
      </SelectFormField>
      <CheckboxField name="news" label="Nouvelles" />
      <button type="submit">Envoyer</button>
    </Form>
  );
}

const nameInput = () => screen.getByLabelText('Nom');

describe('Field', () => {
  it('shows no error while the field is being typed, then shows it once the field is left', async () => {
    render(<Demo onValid={vi.fn()} />);
    fireEvent.change(nameInput(), { target: { value: 'a' } });
    // the hint describes the field until there is an error
    expect(nameInput().getAttribute('aria-describedby')).toMatch(/-hint$/);
    // another field left and validated: the name, typed but not left, still shows nothing
    fireEvent.blur(screen.getByLabelText('Ville'));
    await screen.findByText('Choisissez une ville');
    expect(screen.queryByText('Au moins 2 caractères')).toBeNull();
    expect(nameInput().getAttribute('aria-invalid')).toBeNull();

    fireEvent.blur(nameInput());
    const error = await screen.findByText('Au moins 2 caractères');
    expect(nameInput().getAttribute('aria-invalid')).toBe('true');
    expect(nameInput().getAttribute('aria-describedby')).toBe(error.id);
  });

  it('clears the error as soon as the value is fixed', async () => {
    render(<Demo onValid={vi.fn()} />);
    fireEvent.blur(nameInput());
    await screen.findByText('Au moins 2 caractères');
    fireEvent.change(nameInput(), { target: { value: 'Aline' } });
    await waitFor(() => expect(screen.queryByText('Au moins 2 caractères')).toBeNull());
    expect(nameInput().getAttribute('aria-invalid')).toBeNull();
  });

  it('submitting shows every error and hands only valid, parsed values to the form', async () => {
    const onValid = vi.fn();
    render(<Demo onValid={onValid} />);
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer' }));
    expect(await screen.findByText('Choisissez une ville')).toBeTruthy();
    expect(screen.getByText('Au moins 2 caractères')).toBeTruthy();
    expect(onValid).not.toHaveBeenCalled();

    fireEvent.change(nameInput(), { target: { value: '  Aline  ' } });
    fireEvent.change(screen.getByLabelText('Ville'), { target: { value: 'goma' } });
    fireEvent.click(screen.getByLabelText('Nouvelles'));
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer' }));
    await waitFor(() => expect(onValid).toHaveBeenCalledTimes(1));
    expect(onValid.mock.calls[0]?.[0]).toEqual({ name: 'Aline', city: 'goma', news: true });
  });
});

const numbers = z.object({
  count: z.number({ error: 'Un nombre est requis' }).min(1, 'Au moins 1'),
  code: z.string().min(3, 'Trois caractères'),
});

function Numbers({ onValid, notice = null }: { onValid: (v: z.output<typeof numbers>) => void; notice?: string | null }) {
  const form = useZodForm(numbers, { defaultValues: { count: 2, code: '' } });
  return (
    <Form form={form} onValid={onValid} aria-label="Nombres">
      <NumberFormField name="count" label="Nombre" notice={notice} />
      <Field
        name="code"
        label="Code"
        onBlur={(e) => {
          e.target.value = e.target.value.trim().toUpperCase();
        }}
      />
      <button type="submit">Envoyer</button>
    </Form>
  );
}

describe('NumberFormField and a field’s own onBlur', () => {
  it('holds a number (NaN when empty, refused by the schema) and lets onBlur rewrite the value the form keeps', async () => {
    const onValid = vi.fn();
    render(<Numbers onValid={onValid} />);
    expect((screen.getByLabelText('Nombre') as HTMLInputElement).value).toBe('2');
    fireEvent.change(screen.getByLabelText('Nombre'), { target: { value: '' } });
    fireEvent.blur(screen.getByLabelText('Nombre'));
    expect(await screen.findByText('Un nombre est requis')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Nombre'), { target: { value: '7' } });
    fireEvent.change(screen.getByLabelText('Code'), { target: { value: ' ab1 ' } });
    fireEvent.blur(screen.getByLabelText('Code'));
    expect((screen.getByLabelText('Code') as HTMLInputElement).value).toBe('AB1');
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer' }));
    await waitFor(() => expect(onValid).toHaveBeenCalledTimes(1));
    expect(onValid.mock.calls[0]?.[0]).toEqual({ count: 7, code: 'AB1' });
  });

  it('shows a notice where the error goes while the field has none', async () => {
    render(<Numbers onValid={vi.fn()} notice="Corrigé à 30" />);
    expect(screen.getByText('Corrigé à 30').getAttribute('role')).toBe('alert');
    fireEvent.change(screen.getByLabelText('Nombre'), { target: { value: '0' } });
    fireEvent.blur(screen.getByLabelText('Nombre'));
    expect(await screen.findByText('Au moins 1')).toBeTruthy();
    expect(screen.queryByText('Corrigé à 30')).toBeNull();
  });
});

describe('firstError', () => {
  it('finds the first error in the schema’s order, nested and in arrays, with its dotted name', async () => {
    const nested = z.object({
      general: z.object({ name: z.string().min(1, 'Nom requis') }),
      rates: z.array(z.object({ m: z.number().max(5, 'Au plus 5') })),
    });
    const onInvalid = vi.fn();
    function Nested() {
      const form = useZodForm(nested, { defaultValues: { general: { name: '' }, rates: [{ m: 1 }, { m: 9 }] } });
      return (
        <Form form={form} onValid={vi.fn()} onInvalid={(errors) => onInvalid(firstError(errors))}>
          <button type="submit">Envoyer</button>
        </Form>
      );
    }
    render(<Nested />);
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer' }));
    await waitFor(() => expect(onInvalid).toHaveBeenCalledWith({ name: 'general.name', message: 'Nom requis' }));
    expect(firstError({})).toBeUndefined();
    expect(firstError({ rates: [undefined, { m: { type: 'too_big', message: 'Au plus 5' } }] } as never)).toEqual({ name: 'rates.1.m', message: 'Au plus 5' });
  });
});
