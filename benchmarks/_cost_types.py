"""The types of bench_cost.py: attrs classes for describedtypes, pydantic twins for the peers.

Both are written from the same texts and bounds (``TEXT`` and the ``Annotated`` aliases), so
every library describes the same thing: the attrs classes carry the texts in Google
docstrings, the pydantic models in the class docstring and ``Field(description=...)``.

- ``Invoice``: an invoice with two parties and line items (dates, an enum, bounds);
- ``Person``: a person with three uses of ``Address`` (one optional, one a list);
- ``Event``: a calendar event with datetimes, enums and ``Literal`` choices;
- ``Outline``: a recursive outline (sections holding sections);
- ``Company``: one ``Address`` class used five times, each with its own description;
- ``TOOLS``: ten functions of a travel and office assistant (one takes two addresses).
"""

import datetime as dt
import enum
from types import SimpleNamespace
from typing import Annotated, Any, Literal, get_type_hints

import annotated_types as at
import attrs

TEXT: dict[str, dict[str, str]] = {
    "Party": {"": "A company or person on an invoice.",
              "name": "Legal name as printed.", "email": "Contact e-mail address.",
              "tax_id": "VAT or tax number, if shown."},
    "LineItem": {"": "One billed line.",
                 "description": "What was sold.", "quantity": "How many units.",
                 "unit_price": "Price of one unit, before tax.",
                 "tax_rate": "Tax rate as a fraction, e.g. 0.2 for 20%."},
    "Invoice": {"": "An invoice read from a document.",
                "number": "Invoice number, e.g. INV-1042.", "issued": "Date of issue.",
                "due": "Payment due date, if stated.", "currency": "ISO 4217 currency.",
                "seller": "Who issued the invoice.", "customer": "Who is billed.",
                "lines": "The billed lines, in document order.",
                "notes": "Free-text remarks, if any."},
    "Address": {"": "A postal address.",
                "street": "Street and number.", "city": "City or town.",
                "postal_code": "Postal or ZIP code.",
                "country": "ISO 3166-1 alpha-2 country code."},
    "Person": {"": "A person and where they live and work.",
               "name": "Full name.", "age": "Age in years.", "emails": "E-mail addresses.",
               "home": "Where they live.", "work": "Where they work, if known.",
               "previous": "Earlier home addresses, newest first."},
    "Attendee": {"": "Someone invited to the event.",
                 "name": "Display name.", "role": "Their part in the event.",
                 "rsvp": "Their answer to the invitation."},
    "Event": {"": "A calendar event.",
              "title": "Short title.", "kind": "What sort of event it is.",
              "starts": "Start, with time zone.", "ends": "End, with time zone.",
              "all_day": "True for an all-day event.",
              "recurrence": "How often it repeats, if it does.",
              "attendees": "Who is invited.", "location": "Where it happens, if anywhere."},
    "Section": {"": "A section of an outline.",
                "title": "Heading of the section.", "summary": "One-sentence summary.",
                "children": "Subsections, in order."},
    "Outline": {"": "The outline of a document.",
                "title": "Title of the document.", "sections": "Top-level sections."},
    "Company": {"": "A company and its addresses.",
                "name": "Registered name.", "headquarters": "Head office.",
                "billing": "Where invoices go.", "shipping": "Where goods are delivered.",
                "registered": "Registered office, as filed.",
                "mailing": "Postal address for letters, if different."},
}


def _docstring(name: str) -> str:
    lines = [TEXT[name][""], "", "Attributes:"]
    lines += [f"    {k}: {v}" for k, v in TEXT[name].items() if k]
    return "\n".join(lines)


def _described(cls: Any) -> Any:
    cls.__doc__ = _docstring(cls.__name__)
    return cls


class Currency(enum.Enum):
    USD = "USD"
    EUR = "EUR"
    GBP = "GBP"
    JPY = "JPY"


class Kind(enum.Enum):
    MEETING = "meeting"
    CALL = "call"
    DEADLINE = "deadline"
    TRAVEL = "travel"


class Role(enum.Enum):
    ORGANIZER = "organizer"
    REQUIRED = "required"
    OPTIONAL = "optional"


Rsvp = Literal["yes", "no", "maybe", "pending"]
Recurrence = Literal["daily", "weekly", "monthly", "yearly"]
Qty = Annotated[int, at.Ge(1)]
Money = Annotated[float, at.Ge(0)]
Rate = Annotated[float, at.Ge(0), at.Le(1)]
Age = Annotated[int, at.Ge(0), at.Le(150)]
InvNo = Annotated[str, at.MinLen(1), at.MaxLen(32)]
Country = Annotated[str, at.MinLen(2), at.MaxLen(2)]


# -- the attrs classes (describedtypes) ------------------------------------------------


@_described
@attrs.define
class Party:
    name: str
    email: str
    tax_id: str | None


@_described
@attrs.define
class LineItem:
    description: str
    quantity: Qty
    unit_price: Money
    tax_rate: Rate


@_described
@attrs.define
class Invoice:
    number: InvNo
    issued: dt.date
    due: dt.date | None
    currency: Currency
    seller: Party
    customer: Party
    lines: list[LineItem]
    notes: str | None


@_described
@attrs.define
class Address:
    street: str
    city: str
    postal_code: str
    country: Country


@_described
@attrs.define
class Person:
    name: str
    age: Age
    emails: list[str]
    home: Address
    work: Address | None
    previous: list[Address]


@_described
@attrs.define
class Attendee:
    name: str
    role: Role
    rsvp: Rsvp


@_described
@attrs.define
class Event:
    title: str
    kind: Kind
    starts: dt.datetime
    ends: dt.datetime
    all_day: bool
    recurrence: Recurrence | None
    attendees: list[Attendee]
    location: str | None


@_described
@attrs.define
class Section:
    title: str
    summary: str
    children: list["Section"]


@_described
@attrs.define
class Outline:
    title: str
    sections: list[Section]


@_described
@attrs.define
class Company:
    name: str
    headquarters: Address
    billing: Address
    shipping: Address
    registered: Address
    mailing: Address | None


TYPES = {"invoice": Invoice, "person": Person, "event": Event, "outline": Outline,
         "company": Company}


# -- ten tools --------------------------------------------------------------------------


def get_weather(city: str, days: Annotated[int, at.Ge(1), at.Le(14)],
                units: Literal["metric", "imperial"]) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name, e.g. "Paris".
        days: How many days to forecast.
        units: Units for temperatures and wind.
    """
    return ""


def search_flights(origin: Annotated[str, at.MinLen(3), at.MaxLen(3)],
                   destination: Annotated[str, at.MinLen(3), at.MaxLen(3)],
                   date: dt.date, passengers: Annotated[int, at.Ge(1), at.Le(9)],
                   cabin: Literal["economy", "premium", "business", "first"]) -> str:
    """Search flights between two airports on a day.

    Args:
        origin: IATA code of the departure airport.
        destination: IATA code of the arrival airport.
        date: Day of departure.
        passengers: Number of travellers.
        cabin: Cabin class.
    """
    return ""


def book_hotel(city: str, check_in: dt.date, check_out: dt.date,
               guests: Annotated[int, at.Ge(1), at.Le(8)],
               max_price: Annotated[float, at.Ge(0)] | None) -> str:
    """Book a hotel room.

    Args:
        city: City to stay in.
        check_in: Arrival day.
        check_out: Departure day.
        guests: Number of guests.
        max_price: Highest price per night, if any.
    """
    return ""


def convert_currency(amount: Annotated[float, at.Ge(0)], source: Currency,
                     target: Currency) -> str:
    """Convert an amount between currencies at today's rate.

    Args:
        amount: Amount in the source currency.
        source: Currency to convert from.
        target: Currency to convert to.
    """
    return ""


def send_email(to: list[str], subject: Annotated[str, at.MaxLen(200)], body: str,
               cc: list[str]) -> str:
    """Send an e-mail.

    Args:
        to: Recipient addresses.
        subject: Subject line.
        body: Plain-text body.
        cc: Addresses to copy.
    """
    return ""


def create_event(title: str, starts: dt.datetime, ends: dt.datetime,
                 attendees: list[str], location: str | None) -> str:
    """Create a calendar event.

    Args:
        title: Short title.
        starts: Start, with time zone.
        ends: End, with time zone.
        attendees: E-mail addresses of those invited.
        location: Where it happens, if anywhere.
    """
    return ""


def lookup_contact(query: Annotated[str, at.MinLen(2)],
                   limit: Annotated[int, at.Ge(1), at.Le(50)]) -> str:
    """Find contacts by name, company or e-mail.

    Args:
        query: Text to search for.
        limit: Most results to return.
    """
    return ""


_SHIP_DOC = """Ship a parcel between two addresses.

    Args:
        sender: Where the parcel is collected.
        recipient: Where it is delivered.
        weight_kg: Weight in kilograms.
        service: Delivery speed.
    """


def ship_parcel(sender: Address, recipient: Address, weight_kg: Annotated[float, at.Gt(0)],
                service: Literal["standard", "express"]) -> str:
    return ""


ship_parcel.__doc__ = _SHIP_DOC


def translate(text: str, target_language: Annotated[str, at.MinLen(2), at.MaxLen(5)],
              formality: Literal["formal", "informal", "default"]) -> str:
    """Translate text into another language.

    Args:
        text: Text to translate.
        target_language: BCP 47 language tag, e.g. "de" or "pt-BR".
        formality: Register of the translation.
    """
    return ""


def set_reminder(message: str, at_time: dt.datetime,
                 repeat: Literal["daily", "weekly", "monthly"] | None) -> str:
    """Set a reminder.

    Args:
        message: What to be reminded of.
        at_time: When to remind, with time zone.
        repeat: How often to repeat it, if at all.
    """
    return ""


TOOLS = [get_weather, search_flights, book_hotel, convert_currency, send_email,
         create_event, lookup_contact, ship_parcel, translate, set_reminder]


# -- the pydantic twins (the peers) -------------------------------------------------------


def pydantic_twins() -> SimpleNamespace:
    """The same types as pydantic models, and the tools with pydantic's ``Address``."""
    import pydantic

    def field(cls: str, name: str) -> Any:
        return pydantic.Field(description=TEXT[cls][name])

    class Party(pydantic.BaseModel):
        __doc__ = TEXT["Party"][""]
        name: str = field("Party", "name")
        email: str = field("Party", "email")
        tax_id: str | None = field("Party", "tax_id")

    class LineItem(pydantic.BaseModel):
        __doc__ = TEXT["LineItem"][""]
        description: str = field("LineItem", "description")
        quantity: Qty = field("LineItem", "quantity")
        unit_price: Money = field("LineItem", "unit_price")
        tax_rate: Rate = field("LineItem", "tax_rate")

    class Invoice(pydantic.BaseModel):
        __doc__ = TEXT["Invoice"][""]
        number: InvNo = field("Invoice", "number")
        issued: dt.date = field("Invoice", "issued")
        due: dt.date | None = field("Invoice", "due")
        currency: Currency = field("Invoice", "currency")
        seller: Party = field("Invoice", "seller")
        customer: Party = field("Invoice", "customer")
        lines: list[LineItem] = field("Invoice", "lines")
        notes: str | None = field("Invoice", "notes")

    class Address(pydantic.BaseModel):
        __doc__ = TEXT["Address"][""]
        street: str = field("Address", "street")
        city: str = field("Address", "city")
        postal_code: str = field("Address", "postal_code")
        country: Country = field("Address", "country")

    class Person(pydantic.BaseModel):
        __doc__ = TEXT["Person"][""]
        name: str = field("Person", "name")
        age: Age = field("Person", "age")
        emails: list[str] = field("Person", "emails")
        home: Address = field("Person", "home")
        work: Address | None = field("Person", "work")
        previous: list[Address] = field("Person", "previous")

    class Attendee(pydantic.BaseModel):
        __doc__ = TEXT["Attendee"][""]
        name: str = field("Attendee", "name")
        role: Role = field("Attendee", "role")
        rsvp: Rsvp = field("Attendee", "rsvp")

    class Event(pydantic.BaseModel):
        __doc__ = TEXT["Event"][""]
        title: str = field("Event", "title")
        kind: Kind = field("Event", "kind")
        starts: dt.datetime = field("Event", "starts")
        ends: dt.datetime = field("Event", "ends")
        all_day: bool = field("Event", "all_day")
        recurrence: Recurrence | None = field("Event", "recurrence")
        attendees: list[Attendee] = field("Event", "attendees")
        location: str | None = field("Event", "location")

    class Section(pydantic.BaseModel):
        __doc__ = TEXT["Section"][""]
        title: str = field("Section", "title")
        summary: str = field("Section", "summary")
        children: list["Section"] = field("Section", "children")

    class Outline(pydantic.BaseModel):
        __doc__ = TEXT["Outline"][""]
        title: str = field("Outline", "title")
        sections: list[Section] = field("Outline", "sections")

    class Company(pydantic.BaseModel):
        __doc__ = TEXT["Company"][""]
        name: str = field("Company", "name")
        headquarters: Address = field("Company", "headquarters")
        billing: Address = field("Company", "billing")
        shipping: Address = field("Company", "shipping")
        registered: Address = field("Company", "registered")
        mailing: Address | None = field("Company", "mailing")

    Section.model_rebuild()

    def ship_parcel(sender: Address, recipient: Address,
                    weight_kg: Annotated[float, at.Gt(0)],
                    service: Literal["standard", "express"]) -> str:
        return ""

    ship_parcel.__doc__ = _SHIP_DOC
    tools = [ship_parcel if f.__name__ == "ship_parcel" else f for f in TOOLS]
    return SimpleNamespace(
        types={"invoice": Invoice, "person": Person, "event": Event, "outline": Outline,
               "company": Company},
        tools=tools,
    )


def arguments_model(func: Any, texts: dict[str, Any]) -> Any:
    """A pydantic model of ``func``'s parameters, described with ``texts``.

    ``texts`` is describedtypes' STANDARD schema of the attrs twin of ``func`` (its
    ``description`` and each property's), so every library gets the same words.
    """
    import pydantic

    hints = get_type_hints(func, include_extras=True)
    hints.pop("return", None)
    fields = {
        name: (tp, pydantic.Field(description=texts["properties"][name].get("description")))
        for name, tp in hints.items()
    }
    model = pydantic.create_model(func.__name__, **fields)
    model.__doc__ = texts.get("description")
    return model
