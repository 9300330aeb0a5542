import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { z } from 'zod';
import { CheckboxField, Field, Form, SelectFormField, useZodForm } from './form';

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
