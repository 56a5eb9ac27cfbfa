// The bare fetch app: no framework, only the platform's Request, URL and
// Response. It parses the URL (as any router must) and answers the same bytes
// as the native hyper hello row: {"message":"hello"} as application/json.
export default {
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/') {
      return new Response(JSON.stringify({ message: 'hello' }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    return new Response('not found', { status: 404 });
  },
};
