/**
 * The page's entry: signs in (the token in localStorage, checked with api/whoami) and
 * shows one view at a time by the location's hash:
 *   #/jobs           the job list (jobs.js)
 *   #/jobs/ID        a job's page (job.js)
 *   #/submit         the submit form (submit.js)
 * A view is `show(container, context)` returning a function that stops it (its timers,
 * its log stream). An API answer of 401 signs the user out.
 */
import * as api from './api.js';
import * as jobPage from './job.js';
import * as jobList from './jobs.js';
import * as submitForm from './submit.js';

const $ = (id) => document.getElementById(id);
let user = null;
let stopView = () => {};

function showLogin(message = '') {
  stopView();
  stopView = () => {};
  user = null;
  $('view').replaceChildren();
  $('nav').hidden = true;
  $('account').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message;
  $('token').value = '';
  $('token').focus();
}

/** What a view calls with an error it cannot handle itself: true when it signed out. */
function authFailed(error) {
  if (error instanceof api.ApiError && error.status === 401) {
    api.signOut();
    showLogin('Your token was refused; sign in again.');
    return true;
  }
  return false;
}

function route() {
  if (!user) return;
  stopView();
  const hash = window.location.hash || '#/jobs';
  const view = $('view');
  view.replaceChildren();
  const context = { user, authFailed };
  const match = hash.match(/^#\/jobs\/(\d+)$/);
  let name = 'jobs';
  if (match) {
    stopView = jobPage.show(view, context, Number(match[1]));
  } else if (hash === '#/submit') {
    name = 'submit';
    stopView = submitForm.show(view, context);
  } else {
    stopView = jobList.show(view, context);
  }
  for (const link of document.querySelectorAll('#nav a')) {
    link.classList.toggle('current', link.dataset.route === name && !match);
  }
}

async function start() {
  if (!api.token()) {
    showLogin();
    return;
  }
  try {
    user = await api.whoami();
  } catch (e) {
    if (!authFailed(e)) showLogin(e.message);
    return;
  }
  $('login').hidden = true;
  $('nav').hidden = false;
  $('account').hidden = false;
  $('user').textContent = user.admin ? `${user.name} (admin)` : user.name;
  route();
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  api.signIn($('token').value.trim());
  start();
});
$('sign-out').addEventListener('click', () => {
  api.signOut();
  showLogin();
});
window.addEventListener('hashchange', route);
start();
