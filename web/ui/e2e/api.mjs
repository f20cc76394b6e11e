// The REST API as the browser test's steps call it to set up what the pages then show: one
// request with the test's token, the answer parsed (null when empty); an error status throws
// with the route and the server's words.
export async function callApi(url, token, method, route, body, type = 'application/json') {
  const r = await fetch(`${url}/api/v1${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': type, Accept: 'application/json' },
    body,
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${route}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
