// The end-session page of the OpenID Connect provider
// (web/account/oidc-signed-out.html, docs/oidc.md "Front-Channel Logout"):
// its hidden iframes load each client's front-channel logout URI; once they
// all have (the window's load event waits for them), the browser goes on to
// the post_logout_redirect_uri the client asked for, when there is one.
(function () {
  'use strict';

  function next() {
    const link = document.getElementById('next');
    if (link && link.getAttribute('href')) window.location.replace(link.href);
  }

  if (document.readyState === 'complete') {
    next();
  } else {
    window.addEventListener('load', next);
    // A client that never answers does not keep the user here.
    setTimeout(next, 5000);
  }
})();
