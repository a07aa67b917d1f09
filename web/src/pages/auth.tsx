/**
 * Hosted mode's ways in: sign-in, an invite (`/invite/<token>`: make an account), a password
 * reset link (`/reset/<token>`) and a share link (`/share/<token>`: enter as a guest with a
 * display name). Each uses the auth and share routes; the session is a cookie the server sets.
 */
import { useContext, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { api, call } from "../api/client";
import { navigate } from "../router";
import { SessionContext } from "../session";
import { ProblemBox, Show, useAction, useApi } from "../ui";

function Form(props: {
  title: string;
  submit: string;
  busy: boolean;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  return (
    <section class="auth card" aria-labelledby="auth-h">
      <h1 id="auth-h">{props.title}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onSubmit();
        }}
      >
        {props.children}
        <button
          type="submit"
          class="btn btn-primary"
          disabled={props.busy}
          aria-busy={props.busy ? "true" : undefined}
        >
          {props.submit}
        </button>
      </form>
    </section>
  );
}

function Field(props: {
  label: string;
  type?: "text" | "email" | "password";
  value: string;
  set: (v: string) => void;
  autoComplete?: string;
}) {
  const common = {
    required: true,
    value: props.value,
    autoComplete: props.autoComplete,
    onInput: (e: Event) => props.set((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <label>
      {props.label}
      {props.type === "password" ? (
        <input type="password" {...common} />
      ) : props.type === "email" ? (
        <input type="email" {...common} />
      ) : (
        <input type="text" {...common} />
      )}
    </label>
  );
}

export function SignInPage({ next }: { next?: string }) {
  const { refresh } = useContext(SessionContext);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const act = useAction();
  return (
    <Form
      title="Sign in"
      submit="Sign in"
      busy={act.busy}
      onSubmit={() =>
        void act
          .run(() => call(api.POST("/auth/sign-in", { body: { email, password } })))
          .then((r) => {
            if (!r) return;
            refresh();
            navigate(next && !next.startsWith("/sign-in") ? next : "/", true);
          })
      }
    >
      <Field label="Email" type="email" value={email} set={setEmail} autoComplete="username" />
      <Field
        label="Password"
        type="password"
        value={password}
        set={setPassword}
        autoComplete="current-password"
      />
      <ProblemBox error={act.error} />
    </Form>
  );
}

export function InvitePage({ token }: { token: string }) {
  const { refresh } = useContext(SessionContext);
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const act = useAction();
  return (
    <Form
      title="Accept the invite"
      submit="Make my account"
      busy={act.busy}
      onSubmit={() =>
        void act
          .run(() => call(api.POST("/auth/signup", { body: { token, name, email, password } })))
          .then((r) => {
            if (!r) return;
            refresh();
            navigate("/", true);
          })
      }
    >
      <Field label="Name" value={name} set={setName} autoComplete="name" />
      <Field label="Email" type="email" value={email} set={setEmail} autoComplete="username" />
      <Field
        label="Password (12 characters or more)"
        type="password"
        value={password}
        set={setPassword}
        autoComplete="new-password"
      />
      <ProblemBox error={act.error} />
    </Form>
  );
}

export function ResetPage({ token }: { token: string }) {
  const { refresh } = useContext(SessionContext);
  const [password, setPassword] = useState("");
  const act = useAction();
  return (
    <Form
      title="Set a new password"
      submit="Set the password"
      busy={act.busy}
      onSubmit={() =>
        void act
          .run(() => call(api.POST("/auth/reset", { body: { token, password } })))
          .then((r) => {
            if (!r) return;
            refresh();
            navigate("/", true);
          })
      }
    >
      <Field
        label="New password (12 characters or more)"
        type="password"
        value={password}
        set={setPassword}
        autoComplete="new-password"
      />
      <ProblemBox error={act.error} />
    </Form>
  );
}

export function SharePage({ token }: { token: string }) {
  const { refresh } = useContext(SessionContext);
  const link = useApi(() => call(api.GET("/share/{token}", { params: { path: { token } } })), [token]);
  const [name, setName] = useState("");
  const act = useAction();
  return (
    <Show loaded={link} what="Share link">
      {(l) => (
        <Form
          title={`You are invited to read ${l.title}`}
          submit="Enter as a guest"
          busy={act.busy}
          onSubmit={() =>
            void act
              .run(() => call(api.POST("/share/{token}", { params: { path: { token } }, body: { name } })))
              .then((r) => {
                if (!r) return;
                refresh();
                navigate(l.doc_id ? `/docs/${l.doc_id}` : "/", true);
              })
          }
        >
          <p class="muted">Guests read this bundle and may open threads for people.</p>
          <Field label="Your name" value={name} set={setName} autoComplete="name" />
          <ProblemBox error={act.error} />
        </Form>
      )}
    </Show>
  );
}
