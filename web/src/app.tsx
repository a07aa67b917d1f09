/** The shell: the header with who is signed in and the inbox count, and one page per route. */
import { useContext } from "preact/hooks";
import { api, call } from "./api/client";
import { Link, match, navigate, useLocation } from "./router";
import { SessionContext, isAdmin } from "./session";
import { useApi, ProblemBox } from "./ui";
import { BundleList } from "./pages/bundles";
import { DocPage } from "./pages/doc";
import { HistoryPage } from "./pages/history";
import { ReviewPage, RunPage } from "./pages/review";
import { TracePage } from "./pages/trace";
import { CollabPage, InboxPage } from "./pages/collab";
import { ProfilePage, ProfilesPage } from "./pages/profiles";
import { AdminPage } from "./pages/admin";
import { InvitePage, ResetPage, SharePage, SignInPage } from "./pages/auth";

type Page = (p: Record<string, string>) => preact.JSX.Element;

const ROUTES: Array<[string, Page]> = [
  ["/", () => <BundleList />],
  ["/docs/:docId", (p) => <DocPage docId={p.docId!} />],
  ["/docs/:docId/history", (p) => <HistoryPage docId={p.docId!} />],
  ["/docs/:docId/review", (p) => <ReviewPage docId={p.docId!} />],
  ["/docs/:docId/trace", (p) => <TracePage docId={p.docId!} />],
  ["/docs/:docId/collab", (p) => <CollabPage docId={p.docId!} />],
  ["/docs/:docId/profile", (p) => <ProfilePage docId={p.docId} />],
  ["/runs/:runId", (p) => <RunPage runId={p.runId!} />],
  ["/inbox", () => <InboxPage />],
  ["/profiles", () => <ProfilesPage />],
  ["/profiles/:key", (p) => <ProfilePage profileKey={p.key} />],
  ["/admin", () => <AdminPage />],
  ["/sign-in", () => <SignInPage />],
  ["/invite/:token", (p) => <InvitePage token={p.token!} />],
  ["/reset/:token", (p) => <ResetPage token={p.token!} />],
  ["/share/:token", (p) => <SharePage token={p.token!} />],
];

function Header() {
  const { me, refresh } = useContext(SessionContext);
  const signedIn = me?.signed_in === true;
  const inbox = useApi(
    // Local mode has one person and no inbox to count; a guest has none either.
    () =>
      me?.mode === "hosted" && signedIn && !me.guest
        ? call(api.GET("/inbox", {}))
        : Promise.resolve(undefined),
    [signedIn, me?.guest, me?.mode],
  );
  return (
    <header class="top">
      <Link href="/" class="brand">
        Spec Review
      </Link>
      <nav aria-label="Main">
        <Link href="/">Bundles</Link>
        {!me?.guest ? <Link href="/profiles">Profiles</Link> : null}
        {me?.mode === "hosted" && signedIn && !me.guest ? (
          <Link href="/inbox" aria-label={`Inbox${inbox.data ? `, ${inbox.data.unseen} new` : ""}`}>
            Inbox{inbox.data && inbox.data.unseen > 0 ? <span class="count">{inbox.data.unseen}</span> : null}
          </Link>
        ) : null}
        {isAdmin(me) ? <Link href="/admin">Admin</Link> : null}
      </nav>
      <span class="who">
        {me?.mode === "hosted" ? (
          signedIn ? (
            <>
              {me.user?.name}
              {me.guest ? " (guest)" : ""}{" "}
              <button
                type="button"
                class="btn btn-plain"
                onClick={() => {
                  void call(api.POST("/auth/sign-out", {})).finally(() => {
                    refresh();
                    navigate("/sign-in");
                  });
                }}
              >
                Sign out
              </button>
            </>
          ) : (
            <Link href="/sign-in">Sign in</Link>
          )
        ) : me ? (
          <span class="muted">local mode</span>
        ) : null}
      </span>
    </header>
  );
}

const PUBLIC_PAGES = ["/sign-in", "/invite/", "/reset/", "/share/"];

export function App() {
  const loc = useLocation();
  const me = useApi(() => call(api.GET("/me", {})), []);
  let page: preact.JSX.Element | undefined;
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, loc.path);
    if (params) {
      page = render(params);
      break;
    }
  }
  const isPublic = PUBLIC_PAGES.some((p) => loc.path === p || loc.path.startsWith(p));
  // Hosted mode, nobody signed in: every page but sign-in, invites, resets and share links asks to sign in.
  const needsSignIn = me.data?.mode === "hosted" && !me.data.signed_in && !isPublic;
  return (
    <SessionContext.Provider value={{ me: me.data, refresh: me.reload }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        {me.error ? <ProblemBox error={me.error} /> : null}
        {/* The page starts loading its own data at once, beside GET /me (one round trip less). */}
        {needsSignIn ? (
          <SignInPage next={loc.path + location.search} />
        ) : (
          (page ?? (
            <section>
              <h1>Page not found</h1>
              <p>
                No page at <code>{loc.path}</code>. <Link href="/">All bundles</Link>
              </p>
            </section>
          ))
        )}
      </main>
    </SessionContext.Provider>
  );
}
