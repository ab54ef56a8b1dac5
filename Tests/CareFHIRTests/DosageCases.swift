/// Dosages covering every field CareSync reads. The import day, 2016-08-15, is a Monday.
let dosageCases: [DosageCase] = [
    DosageCase(
        name: "one tablet once a day",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#,
        en: "1 tablet once a day", de: "1 Tablette einmal täglich",
        events: ["2016-08-15": untimed(1), "2016-08-16": untimed(1)]),
    DosageCase(
        name: "two tablets twice a day",
        dosage: #"{"timing": {"repeat": {"frequency": 2, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "tablets"}}]}"#,
        en: "2 tablets twice a day", de: "2 Tabletten 2-mal täglich",
        events: ["2016-08-15": untimed(2)]),
    DosageCase(
        name: "three times a day, capsule by SNOMED code",
        dosage: #"{"timing": {"repeat": {"frequency": 3, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "Kapsel", "system": "http://snomed.info/sct", "code": "732937005"}}]}"#,
        en: "1 capsule 3 times a day", de: "1 Kapsel 3-mal täglich",
        events: ["2016-08-17": untimed(3)]),
    DosageCase(
        name: "every 8 hours from 06:00",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 8, "periodUnit": "h", "timeOfDay": ["06:00:00"]}}}"#,
        en: "every 8 hours at 06:00", de: "alle 8 Stunden um 06:00",
        events: ["2016-08-15": timed("06:00", "14:00", "22:00")]),
    DosageCase(
        name: "every other day",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 2, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#,
        en: "1 tablet every other day", de: "1 Tablette jeden zweiten Tag",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-17": untimed(1)]),
    DosageCase(
        name: "for 10 days",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "boundsDuration": {"value": 10, "unit": "days", "system": "http://unitsofmeasure.org", "code": "d"}}}}"#,
        en: "once a day for 10 days", de: "einmal täglich 10 Tage lang",
        events: ["2016-08-24": untimed(1), "2016-08-25": []]),
    DosageCase(
        name: "up to 3 times a day as needed",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "frequencyMax": 3, "period": 1, "periodUnit": "d"}}, "asNeededBoolean": true, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#,
        en: "1 tablet up to 3 times a day as needed", de: "1 Tablette bis zu 3-mal täglich bei Bedarf",
        events: ["2016-08-15": untimed(3)], asNeeded: true),
    DosageCase(
        name: "Monday, Wednesday and Friday at 08:00",
        dosage: #"{"timing": {"repeat": {"dayOfWeek": ["fri", "mon", "wed"], "timeOfDay": ["08:00:00"]}}}"#,
        en: "on Monday, Wednesday and Friday at 08:00", de: "am Montag, Mittwoch und Freitag um 08:00",
        events: ["2016-08-15": timed("08:00"), "2016-08-16": [], "2016-08-17": timed("08:00"), "2016-08-19": timed("08:00")]),
    DosageCase(
        name: "before breakfast and dinner",
        dosage: #"{"timing": {"repeat": {"when": ["ACM", "ACV"]}}}"#,
        en: "before breakfast and dinner", de: "vor dem Frühstück und dem Abendessen",
        events: ["2016-08-15": timed("07:30", "18:00")]),
    DosageCase(
        name: "an hour after breakfast (offset)",
        dosage: #"{"timing": {"repeat": {"when": ["PCM"], "offset": 60}}}"#,
        en: "60 minutes after breakfast", de: "60 Minuten nach dem Frühstück",
        events: ["2016-08-15": timed("09:00")]),
    DosageCase(
        name: "morning and evening",
        dosage: #"{"timing": {"repeat": {"frequency": 2, "period": 1, "periodUnit": "d", "when": ["MORN", "EVE"]}}}"#,
        en: "twice a day in the morning and in the evening", de: "2-mal täglich morgens und abends",
        events: ["2016-08-15": timed("08:00", "18:00")]),
    DosageCase(
        name: "at bedtime",
        dosage: #"{"timing": {"repeat": {"when": ["HS"]}}, "doseAndRate": [{"doseQuantity": {"value": 10, "unit": "mg"}}]}"#,
        en: "10 mg at bedtime", de: "10 mg vor dem Schlafengehen",
        events: ["2016-08-15": timed("22:00")]),
    DosageCase(
        name: "with meals",
        dosage: #"{"timing": {"repeat": {"when": ["C"]}}}"#,
        en: "with meals", de: "mit den Mahlzeiten",
        events: ["2016-08-15": timed("08:00", "12:30", "18:30")]),
    DosageCase(
        name: "code BID",
        dosage: #"{"timing": {"code": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v3-GTSAbbreviation", "code": "BID"}]}}}"#,
        en: "twice a day", de: "2-mal täglich",
        events: ["2016-08-15": untimed(2)]),
    DosageCase(
        name: "code QID",
        dosage: #"{"timing": {"code": {"coding": [{"code": "QID"}]}}, "doseAndRate": [{"doseQuantity": {"value": 5, "unit": "mL"}}]}"#,
        en: "5 mL 4 times a day", de: "5 mL 4-mal täglich",
        events: ["2016-08-15": untimed(4)]),
    DosageCase(
        name: "code Q6H",
        dosage: #"{"timing": {"code": {"text": "Q6H"}}}"#,
        en: "every 6 hours", de: "alle 6 Stunden",
        events: ["2016-08-15": untimed(4)]),
    DosageCase(
        name: "code QOD",
        dosage: #"{"timing": {"code": {"coding": [{"code": "QOD"}]}}}"#,
        en: "every other day", de: "jeden zweiten Tag",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-17": untimed(1)]),
    DosageCase(
        name: "code AM",
        dosage: #"{"timing": {"code": {"coding": [{"code": "AM"}]}}}"#,
        en: "once a day in the morning", de: "einmal täglich morgens",
        events: ["2016-08-15": timed("08:00")]),
    DosageCase(
        name: "code TID with bounds of 5 days",
        dosage: #"{"timing": {"code": {"coding": [{"code": "TID"}]}, "repeat": {"boundsDuration": {"value": 5, "code": "d"}}}}"#,
        en: "3 times a day for 5 days", de: "3-mal täglich 5 Tage lang",
        events: ["2016-08-19": untimed(3), "2016-08-20": []]),
    DosageCase(
        name: "every 5 hours does not fit a day",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 5, "periodUnit": "h"}}}"#,
        en: "every 5 hours", de: "alle 5 Stunden",
        events: ["2016-08-15": untimed(5)], warnings: [.inexact]),
    DosageCase(
        name: "every 36 hours does not fit whole days",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 36, "periodUnit": "h"}}}"#,
        en: "every 36 hours", de: "alle 36 Stunden",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-17": untimed(1)], warnings: [.inexact]),
    DosageCase(
        name: "twice every 3 days",
        dosage: #"{"timing": {"repeat": {"frequency": 2, "period": 3, "periodUnit": "d"}}}"#,
        en: "twice every 3 days", de: "2-mal alle 3 Tage",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-17": untimed(1)], warnings: [.inexact]),
    DosageCase(
        name: "2 to 3 times a day",
        dosage: #"{"timing": {"repeat": {"frequency": 2, "frequencyMax": 3, "period": 1, "periodUnit": "d"}}}"#,
        en: "2 to 3 times a day", de: "2- bis 3-mal täglich",
        events: ["2016-08-15": untimed(2)], warnings: [.range]),
    DosageCase(
        name: "every 4 to 6 hours as needed for pain",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 4, "periodMax": 6, "periodUnit": "h"}}, "asNeededCodeableConcept": {"coding": [{"display": "migraine"}]}}"#,
        en: "up to once every 4 to 6 hours as needed for migraine", de: "bis zu einmal alle 4 bis 6 Stunden bei Bedarf bei migraine",
        events: ["2016-08-15": untimed(6)], asNeeded: true),
    DosageCase(
        name: "a dose range",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseRange": {"low": {"value": 1, "unit": "tablet"}, "high": {"value": 2, "unit": "tablet"}}}]}"#,
        en: "1 to 2 tablets once a day", de: "1 bis 2 Tabletten einmal täglich",
        events: ["2016-08-15": untimed(1)]),
    DosageCase(
        name: "half a tablet: plural by the rule, not by count == 1",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 0.5, "unit": "TAB"}}]}"#,
        en: "0.5 tablets once a day", de: "0,5 Tabletten einmal täglich",
        events: ["2016-08-15": untimed(1)]),
    DosageCase(
        name: "ten doses in all",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "count": 10}}}"#,
        en: "once a day 10 times in all", de: "einmal täglich insgesamt 10-mal",
        events: ["2016-08-24": untimed(1), "2016-08-25": []]),
    DosageCase(
        name: "a range of counts",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "count": 5, "countMax": 7}}}"#,
        en: "once a day 5 to 7 times in all", de: "einmal täglich insgesamt 5- bis 7-mal",
        events: ["2016-08-19": untimed(1), "2016-08-20": []], warnings: [.range]),
    DosageCase(
        name: "bounds period",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "boundsPeriod": {"start": "2016-08-20", "end": "2016-08-22"}}}}"#,
        en: "once a day from 2016-08-20 to 2016-08-22", de: "einmal täglich vom 20.08.2016 bis 22.08.2016",
        events: ["2016-08-19": [], "2016-08-20": untimed(1), "2016-08-22": untimed(1), "2016-08-23": []]),
    DosageCase(
        name: "bounds range: scheduled for the longest",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "boundsRange": {"low": {"value": 5, "code": "d"}, "high": {"value": 10, "code": "d"}}}}}"#,
        en: "once a day for 5 to 10 days", de: "einmal täglich 5 bis 10 Tage lang",
        events: ["2016-08-24": untimed(1), "2016-08-25": []], warnings: [.range]),
    DosageCase(
        name: "duration of each administration",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "duration": 30, "durationUnit": "min"}}}"#,
        en: "once a day for 30 minutes each time", de: "einmal täglich jeweils 30 Minuten lang",
        events: ["2016-08-15": untimed(1)]),
    DosageCase(
        name: "as needed with a maximum per day, no timing",
        dosage: #"{"asNeededBoolean": true, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "tablet"}}], "maxDosePerPeriod": {"numerator": {"value": 6, "unit": "tablet"}, "denominator": {"value": 1, "code": "d"}}}"#,
        en: "2 tablets as needed, at most 6 tablets a day", de: "2 Tabletten bei Bedarf, höchstens 6 Tabletten täglich",
        events: ["2016-08-15": untimed(4)], asNeeded: true),
    DosageCase(
        name: "a maximum over 12 hours",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 6, "periodUnit": "h"}}, "maxDosePerPeriod": {"numerator": {"value": 1, "unit": "puff"}, "denominator": {"value": 12, "unit": "hours"}}}"#,
        en: "every 6 hours, at most 1 puff in 12 hours", de: "alle 6 Stunden, höchstens 1 Hub in 12 Stunden",
        events: ["2016-08-15": untimed(4)]),
    DosageCase(
        name: "once a week",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "wk"}}}"#,
        en: "once a week", de: "einmal wöchentlich",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-22": untimed(1)]),
    DosageCase(
        name: "3 times a week on given days",
        dosage: #"{"timing": {"repeat": {"frequency": 3, "period": 1, "periodUnit": "wk", "dayOfWeek": ["mon", "wed", "fri"]}}}"#,
        en: "3 times a week on Monday, Wednesday and Friday", de: "3-mal wöchentlich am Montag, Mittwoch und Freitag",
        events: ["2016-08-15": untimed(1), "2016-08-16": [], "2016-08-19": untimed(1)]),
    DosageCase(
        name: "every other week on Thursday",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 2, "periodUnit": "wk", "dayOfWeek": ["thu"]}}}"#,
        en: "every other week on Thursday", de: "jede zweite Woche am Donnerstag",
        events: ["2016-08-18": untimed(1), "2016-08-25": [], "2016-09-01": untimed(1)]),
    DosageCase(
        name: "once a month is not exact",
        dosage: #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "mo"}}}"#,
        en: "once a month", de: "einmal monatlich",
        events: ["2016-08-15": untimed(1), "2016-09-13": [], "2016-09-14": untimed(1)], warnings: [.inexact]),
    DosageCase(
        name: "twice a day at given times",
        dosage: #"{"timing": {"repeat": {"frequency": 2, "period": 1, "periodUnit": "d", "timeOfDay": ["20:00:00", "08:00:00"]}}}"#,
        en: "twice a day at 08:00 and 20:00", de: "2-mal täglich um 08:00 und 20:00",
        events: ["2016-08-15": timed("08:00", "20:00")]),
    DosageCase(
        name: "an event list",
        dosage: #"{"timing": {"event": ["2016-08-16T09:00:00+02:00", "2016-08-17T07:00:00Z"]}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#,
        en: "1 tablet", de: "1 Tablette",
        events: ["2016-08-15": [], "2016-08-16": timed("09:00"), "2016-08-17": timed("09:00"), "2016-08-18": []]),
    DosageCase(
        name: "an event list far in the past",
        dosage: #"{"timing": {"event": ["2014-03-01T09:00:00+01:00", "2016-08-16T09:00:00+02:00"]}}"#,
        en: "", de: "",
        events: ["2016-08-16": timed("09:00"), "2016-08-17": []], warnings: [.pastEvents]),
    DosageCase(
        name: "an irregular event list",
        dosage: #"{"timing": {"event": ["2016-08-16T09:00:00+02:00", "2016-08-17T09:00:00+02:00", "2016-08-20T09:00:00+02:00"]}}"#,
        en: "", de: "",
        events: ["2016-08-17": timed("09:00"), "2016-08-20": []], warnings: [.irregularEvents]),
    DosageCase(
        name: "no timing at all",
        dosage: #"{"text": "as directed", "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "drop"}}]}"#,
        en: "1 drop", de: "1 Tropfen",
        events: ["2016-08-15": untimed(4)], warnings: [.unscheduled], asNeeded: true),
]
