// The dashboard's only client code (docs/decisions.md D14, N46): follows the server-sent events of
// the view shown and puts each new <main> fragment the server rendered in place. No framework, no
// build step. The only HTML it inserts is the server's own fragment (escaped there by the html
// tag); the status badge is set with textContent.
const main = document.getElementById('view');
const live = main?.dataset.live;

if (main && live) {
  const badge = document.createElement('span');
  badge.className = 'badge badge-muted live-status';
  badge.setAttribute('role', 'status');
  badge.textContent = 'connecting';
  (document.querySelector('.site-header') ?? document.body).append(badge);

  const show = (text, tone) => {
    badge.textContent = text;
    badge.className = `badge badge-${tone} live-status`;
  };

  const events = new EventSource(`/events?view=${encodeURIComponent(live)}`);
  events.addEventListener('open', () => show('live', 'ok'));
  events.addEventListener('view', (event) => {
    main.innerHTML = event.data;
    show('live', 'ok');
  });
  events.addEventListener('error', () => {
    // CLOSED: the server refused the stream (signed out, access revoked); reloading shows why.
    if (events.readyState === EventSource.CLOSED) show('offline: reload the page', 'bad');
    else show('reconnecting', 'warn');
  });
}
