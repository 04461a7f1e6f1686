/*
 * The hosted payment page's one script (docs/hosted-page.md): it only improves what already works without it.
 * - The phone field: as the payer types, the operator the prefix table predicts is chosen and named (the payer may
 *   choose another; then the prediction stops changing it), and only that operator's warning shows when it is slow or
 *   down.
 * - The receipt: goes on to the merchant's `success_url` after 5 s unless the payer touched the page.
 * - The wait screen: follows the session live (Server-Sent Events, else polling `/public` every 3 s) and reloads the
 *   screen once the attempt is final, which the server renders as the receipt or the failure.
 * - Card: the sandbox card form (starts a card attempt, then confirms it at the sandbox gateway), or, in live, Stripe's
 *   Payment Element (Stripe.js is loaded only then).
 */
/* global document, window, fetch, location, URL, EventSource, setTimeout */
(function () {
  'use strict';

  var FINAL = ['completed', 'failed', 'cancelled'];

  function postJson(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw json;
        return json.data;
      });
    });
  }

  // ---- the phone field and the predicted operator ----
  var form = document.querySelector('form.pay');
  if (form) {
    var phone = form.querySelector('#phone');
    var select = form.querySelector('#operator');
    var note = document.getElementById('operator-note');
    var callingCode = form.getAttribute('data-calling-code') || '';
    var chosen = select.value !== '';

    var nationalNumber = function (value) {
      var digits = value.replace(/[\s.\-()/]/g, '');
      if (digits.indexOf('00') === 0) digits = '+' + digits.slice(2);
      if (digits.charAt(0) === '+') {
        return digits.indexOf('+' + callingCode) === 0 ? digits.slice(callingCode.length + 1) : '';
      }
      if (digits.indexOf(callingCode) === 0 && digits.length >= callingCode.length + 8) {
        return digits.slice(callingCode.length);
      }
      return digits.charAt(0) === '0' ? digits.slice(1) : digits;
    };

    var predict = function () {
      if (chosen) return;
      var number = nationalNumber(phone.value);
      var found = null;
      Array.prototype.forEach.call(select.options, function (option) {
        var prefixes = (option.getAttribute('data-prefixes') || '').split(' ');
        prefixes.forEach(function (prefix) {
          if (!found && prefix && number.length >= prefix.length && number.indexOf(prefix) === 0) found = option;
        });
      });
      select.value = found ? found.value : '';
      note.textContent = found ? found.getAttribute('data-note') : '';
    };

    // The warnings of operators that are slow or down: only the chosen or predicted one's, else every one.
    var notices = document.querySelectorAll('[data-operator-notice]');
    var showNotices = function () {
      Array.prototype.forEach.call(notices, function (notice) {
        notice.hidden = select.value !== '' && notice.getAttribute('data-operator-notice') !== select.value;
      });
    };

    phone.addEventListener('input', function () {
      predict();
      showNotices();
    });
    select.addEventListener('change', function () {
      chosen = select.value !== '';
      if (!chosen) predict();
      else note.textContent = '';
      showNotices();
    });
    form.addEventListener('submit', function () {
      var button = form.querySelector('button[type=submit]');
      // After the browser took the submission: a second tap would only meet the attempt in flight.
      setTimeout(function () {
        button.disabled = true;
      }, 0);
    });
  }

  // ---- the wait screen: live status ----
  var wait = document.querySelector('[data-wait]');
  if (wait) {
    var here = wait.getAttribute('data-here');
    var publicUrl = wait.getAttribute('data-public');
    var eventsUrl = wait.getAttribute('data-events');
    var finished = false;
    var finish = function () {
      if (finished) return;
      finished = true;
      window.location.replace(here);
    };
    var poll = function () {
      if (finished) return;
      fetch(publicUrl, { cache: 'no-store', credentials: 'omit' })
        .then(function (response) {
          return response.json();
        })
        .then(
          function (body) {
            var session = body && body.data;
            if (session && (session.status !== 'open' || !session.attempt_in_progress)) finish();
            else setTimeout(poll, 3000);
          },
          function () {
            setTimeout(poll, 5000);
          },
        );
    };
    if (window.EventSource) {
      var source = new EventSource(eventsUrl);
      source.onmessage = function (message) {
        var state;
        try {
          state = JSON.parse(message.data);
        } catch {
          return;
        }
        if (state.status !== 'open' || (state.attempt && FINAL.indexOf(state.attempt.status) >= 0)) {
          source.close();
          finish();
        }
      };
      source.onerror = function () {
        // The stream failed or is refused (too many streams): follow by polling instead.
        source.close();
        setTimeout(poll, 1000);
      };
    } else {
      setTimeout(poll, 3000);
    }
  }

  // ---- the receipt: on to success_url after 5 s, unless the payer touches the page first ----
  var receipt = document.querySelector('[data-redirect]');
  if (receipt) {
    var stay = false;
    ['keydown', 'pointerdown', 'focusin', 'scroll'].forEach(function (type) {
      document.addEventListener(type, function () {
        stay = true;
      });
    });
    var notice = receipt.querySelector('[data-redirect-notice]');
    if (notice) notice.hidden = false;
    setTimeout(function () {
      if (!stay) window.location.assign(receipt.getAttribute('data-redirect'));
    }, 5000);
  }

  // ---- card ----
  var cardForm = document.querySelector('form[data-card]');
  if (cardForm) {
    cardForm.hidden = false;
    var errorLine = cardForm.querySelector('[data-card-error]');
    var cardButton = cardForm.querySelector('button[type=submit]');
    var attemptsUrl = cardForm.getAttribute('data-attempts');
    var resultPath = cardForm.getAttribute('data-result');
    var resultUrl = function (payment) {
      var query = resultPath.indexOf('?');
      return query < 0
        ? resultPath + encodeURIComponent(payment)
        : resultPath.slice(0, query) + encodeURIComponent(payment) + resultPath.slice(query);
    };
    var fail = function () {
      errorLine.textContent = cardForm.getAttribute('data-error');
      errorLine.hidden = false;
      cardButton.disabled = false;
    };

    if (cardForm.getAttribute('data-card') === 'sandbox') {
      cardForm.addEventListener('submit', function (event) {
        event.preventDefault();
        errorLine.hidden = true;
        cardButton.disabled = true;
        var field = function (name) {
          return cardForm.elements[name].value.replace(/\s/g, '');
        };
        postJson(attemptsUrl, { payment_method: 'card' })
          .then(function (attempt) {
            return postJson('/v1/sandbox/card-gateway/confirm', {
              client_secret: attempt.next_action.client_secret,
              card_number: field('card_number'),
              exp_month: Number(field('exp_month')),
              exp_year: Number(field('exp_year')),
              cvc: field('cvc'),
            }).then(function () {
              window.location.assign(resultUrl(attempt.payment));
            });
          })
          .catch(fail);
      });
    } else {
      // Live: Stripe's Payment Element, on the card attempt's client secret (docs/hosted-page.md#card).
      var stripeScript = document.createElement('script');
      stripeScript.src = 'https://js.stripe.com/v3/';
      document.head.appendChild(stripeScript);
      var elements = null;
      var payment = null;
      cardForm.addEventListener('submit', function (event) {
        event.preventDefault();
        if (!window.Stripe) return fail();
        var stripe = window.Stripe(cardForm.getAttribute('data-key'));
        errorLine.hidden = true;
        cardButton.disabled = true;
        if (!elements) {
          postJson(attemptsUrl, { payment_method: 'card' })
            .then(function (attempt) {
              payment = attempt.payment;
              elements = stripe.elements({ clientSecret: attempt.next_action.client_secret });
              elements.create('payment').mount('#payment-element');
              cardButton.disabled = false;
            })
            .catch(fail);
          return;
        }
        var returnUrl = new URL(resultUrl(payment), location.href).href;
        stripe.confirmPayment({ elements: elements, confirmParams: { return_url: returnUrl } }).then(function (result) {
          if (result.error) fail();
        });
      });
    }
  }
})();
